// Tests of GatherEmbeddings on a small [4, 3] table (padding, truncation, invalid input), and of
// the CUDA kernel against the CPU twin on random input where a GPU is present.
#include "kernels/embedding_gather.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/test_util.h"

namespace compiler_gym::kernels {
namespace {

using testing::Contains;
using testing::ToHost;
using F = std::vector<float>;
using V = std::vector<int64_t>;

// Row r of a [4, 3] table holds r*10 + column.
EmbeddingTable SmallTable(Device device = Device::kCpu) {
  F values;
  for (int r = 0; r < 4; ++r) {
    for (int c = 0; c < 3; ++c) values.push_back(static_cast<float>(r * 10 + c));
  }
  auto table = EmbeddingTable::Create(values, 4, 3, device);
  EXPECT_TRUE(table.ok()) << table.status().ToString();
  return std::move(table).value();
}

// Sequences [1, 3], [], [0, 2, 1].
const V kIndices = {1, 3, 0, 2, 1};
const V kOffsets = {0, 2, 2, 5};

TEST(EmbeddingGather, PadsToTheLongestSequence) {
  EmbeddingTable table = SmallTable();
  EXPECT_EQ(table.rows(), 4);
  EXPECT_EQ(table.dim(), 3);
  EXPECT_EQ(table.device(), Device::kCpu);
  auto out = GatherEmbeddings(table, kIndices, kOffsets);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->num_sequences, 3);
  EXPECT_EQ(out->max_length, 3);
  EXPECT_EQ(out->dim, 3);
  EXPECT_EQ(ToHost<int64_t>(out->lengths), (V{2, 0, 3}));
  EXPECT_EQ(ToHost<float>(out->values), (F{
                                            10, 11, 12, 30, 31, 32, 0,  0,  0,   // [1, 3]
                                            0,  0,  0,  0,  0,  0,  0,  0,  0,   // []
                                            0,  1,  2,  20, 21, 22, 10, 11, 12,  // [0, 2, 1]
                                        }));
}

TEST(EmbeddingGather, TruncatesToMaxLength) {
  auto out = GatherEmbeddings(SmallTable(), kIndices, kOffsets, /*max_length=*/1);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->max_length, 1);
  EXPECT_EQ(ToHost<int64_t>(out->lengths), (V{1, 0, 1}));
  EXPECT_EQ(ToHost<float>(out->values), (F{10, 11, 12, 0, 0, 0, 0, 1, 2}));
}

TEST(EmbeddingGather, PadsPastTheLongestWhenAsked) {
  auto out = GatherEmbeddings(SmallTable(), V{3}, V{0, 1}, /*max_length=*/3);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(ToHost<int64_t>(out->lengths), (V{1}));
  EXPECT_EQ(ToHost<float>(out->values), (F{30, 31, 32, 0, 0, 0, 0, 0, 0}));
}

TEST(EmbeddingGather, NoSequences) {
  auto out = GatherEmbeddings(SmallTable(), V{}, V{0});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->num_sequences, 0);
  EXPECT_EQ(out->max_length, 0);
  EXPECT_EQ(out->values.size(), 0u);
}

TEST(EmbeddingGather, RejectsAnIndexOutsideTheTable) {
  EmbeddingTable table = SmallTable();
  Status status = GatherEmbeddings(table, V{1, 3, 0, 4, 1}, kOffsets).status();
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(status.message(), "sequence 2, position 1: index 4")) << status.message();
  status = GatherEmbeddings(table, V{-1, 3, 0, 2, 1}, kOffsets).status();
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(status.message(), "sequence 0, position 0")) << status.message();
  // Truncation does not hide a bad index.
  status = GatherEmbeddings(table, V{1, 3, 0, 2, 9}, kOffsets, /*max_length=*/1).status();
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
}

TEST(EmbeddingGather, RejectsBadOffsets) {
  EmbeddingTable table = SmallTable();
  auto code = [&](const V& offsets, int64_t max_length = 0) {
    return GatherEmbeddings(table, kIndices, offsets, max_length).status();
  };
  EXPECT_TRUE(Contains(code(V{}).message(), "offsets is empty"));
  EXPECT_TRUE(Contains(code(V{1, 2, 5}).message(), "start at 0"));
  EXPECT_TRUE(Contains(code(V{0, 3, 2, 5}).message(), "decrease at sequence 1"));
  EXPECT_TRUE(Contains(code(V{0, 2, 4}).message(), "offsets end at 4 but there are 5 indices"));
  EXPECT_TRUE(Contains(code(V{0, 2, 6}).message(), "offsets end at 6"));
  EXPECT_EQ(code(kOffsets, -1).code(), StatusCode::kInvalidArgument);
  for (const V& offsets : {V{}, V{1, 2, 5}, V{0, 3, 2, 5}, V{0, 2, 4}}) {
    EXPECT_EQ(code(offsets).code(), StatusCode::kInvalidArgument);
  }
}

TEST(EmbeddingTable, RejectsInconsistentShapes) {
  F values(12, 1.0f);
  EXPECT_EQ(EmbeddingTable::Create(values, 4, 4, Device::kCpu).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(EmbeddingTable::Create(values, 12, 0, Device::kCpu).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(EmbeddingTable::Create(values, -3, -4, Device::kCpu).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(EmbeddingTable, CudaWithoutADeviceIsUnavailable) {
  if (CudaDeviceCount() > 0) GTEST_SKIP() << "a CUDA device is available here";
  F values(12, 1.0f);
  EXPECT_EQ(EmbeddingTable::Create(values, 4, 3, Device::kCuda).status().code(),
            StatusCode::kUnavailable);
}

struct RandomGather {
  F table;
  V indices, offsets;
};

RandomGather MakeRandomGather(uint32_t seed, int64_t rows, int64_t dim, int sequences,
                              int64_t max_length) {
  std::mt19937_64 rng(seed);
  RandomGather r;
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  for (int64_t i = 0; i < rows * dim; ++i) r.table.push_back(value(rng));
  std::uniform_int_distribution<int64_t> length(0, max_length);
  std::uniform_int_distribution<int64_t> index(0, rows - 1);
  r.offsets.push_back(0);
  for (int g = 0; g < sequences; ++g) {
    const int64_t n = length(rng);
    for (int64_t p = 0; p < n; ++p) r.indices.push_back(index(rng));
    r.offsets.push_back(static_cast<int64_t>(r.indices.size()));
  }
  return r;
}

TEST(EmbeddingGatherCuda, MatchesTheCpuTwin) {
  CG_SKIP_WITHOUT_CUDA();
  // dim 200 (inst2vec) takes the float4 path, dim 7 the scalar one.
  for (int64_t dim : {200, 7, 4, 1}) {
    RandomGather r = MakeRandomGather(static_cast<uint32_t>(dim), 500, dim, 37, 90);
    auto cpu_table = EmbeddingTable::Create(r.table, 500, dim, Device::kCpu);
    auto cuda_table = EmbeddingTable::Create(r.table, 500, dim, Device::kCuda);
    ASSERT_TRUE(cpu_table.ok() && cuda_table.ok()) << cuda_table.status().ToString();
    EXPECT_EQ(cuda_table->device(), Device::kCuda);
    for (int64_t max_length : {0, 16, 200}) {
      auto cpu = GatherEmbeddings(*cpu_table, r.indices, r.offsets, max_length);
      auto cuda = GatherEmbeddings(*cuda_table, r.indices, r.offsets, max_length);
      ASSERT_TRUE(cpu.ok()) << cpu.status().ToString();
      ASSERT_TRUE(cuda.ok()) << cuda.status().ToString();
      EXPECT_EQ(cuda->values.device(), Device::kCuda);
      EXPECT_EQ(cpu->max_length, cuda->max_length);
      EXPECT_EQ(ToHost<int64_t>(cpu->lengths), ToHost<int64_t>(cuda->lengths));
      // Bit-identical: compare the float bits, not just the values.
      const F a = ToHost<float>(cpu->values);
      const F b = ToHost<float>(cuda->values);
      ASSERT_EQ(a.size(), b.size());
      EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(float)))
          << "dim " << dim << ", max_length " << max_length;
    }
  }
}

TEST(EmbeddingGatherCuda, GoldenAndValidation) {
  CG_SKIP_WITHOUT_CUDA();
  EmbeddingTable table = SmallTable(Device::kCuda);
  auto out = GatherEmbeddings(table, kIndices, kOffsets, 0, EngineStream());
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(ToHost<float>(out->values), (F{
                                            10, 11, 12, 30, 31, 32, 0,  0,  0,   //
                                            0,  0,  0,  0,  0,  0,  0,  0,  0,   //
                                            0,  1,  2,  20, 21, 22, 10, 11, 12,  //
                                        }));
  EXPECT_EQ(GatherEmbeddings(table, V{1, 3, 0, 4, 1}, kOffsets).status().code(),
            StatusCode::kInvalidArgument);
  auto none = GatherEmbeddings(table, V{}, V{0, 0});
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_EQ(none->values.size(), 0u);
  EXPECT_EQ(ToHost<int64_t>(none->lengths), (V{0}));
}

}  // namespace
}  // namespace compiler_gym::kernels
