// Tests of Slab on hand-made SpaceSpecs: fixed rows, dtype conversion, defaults of cleared rows,
// variable rows packed into values + offsets, custom allocators and graph rows.
#include "engine/slab.h"

#include <gtest/gtest.h>

#include <cstring>

namespace compiler_gym {
namespace {

TEST(Slab, FixedVectorRowsAreContiguous) {
  Slab slab(SpaceSpec{"v", SpaceKind::kVector, DType::kInt64, {3}}, 2);
  ASSERT_TRUE(slab.fixed());
  EXPECT_EQ(slab.shape(), (std::vector<int64_t>{2, 3}));
  ASSERT_TRUE(slab.Write(1, Observation(std::vector<int64_t>{7, 8, 9})).ok());
  const auto* data = static_cast<const int64_t*>(slab.data());
  EXPECT_EQ(data[0], 0);
  EXPECT_EQ(data[3], 7);
  EXPECT_EQ(data[5], 9);
  slab.Clear(1);
  EXPECT_EQ(data[5], 0);
}

TEST(Slab, ConvertsToTheSlabDtype) {
  Slab slab(SpaceSpec{"f", SpaceKind::kVector, DType::kFloat32, {2}}, 1);
  ASSERT_TRUE(slab.Write(0, Observation(std::vector<int64_t>{1, 3})).ok());
  const auto* data = static_cast<const float*>(slab.data());
  EXPECT_FLOAT_EQ(data[1], 3.0f);
  Slab scalar(SpaceSpec{"s", SpaceKind::kScalar, DType::kFloat64, {}}, 3);
  EXPECT_EQ(scalar.shape(), (std::vector<int64_t>{3}));
  ASSERT_TRUE(scalar.Write(2, Observation(int64_t{5})).ok());
  EXPECT_DOUBLE_EQ(static_cast<const double*>(scalar.data())[2], 5.0);
}

TEST(Slab, AClearedScalarRowReadsTheSpacesDefault) {
  SpaceSpec spec{"size", SpaceKind::kScalar, DType::kInt64, {}};
  spec.scalar_default = -1;
  Slab slab(spec, 2);
  ASSERT_TRUE(slab.Write(0, Observation(int64_t{42})).ok());
  ASSERT_TRUE(slab.Write(1, Observation(int64_t{43})).ok());
  slab.Clear(1);
  const auto* data = static_cast<const int64_t*>(slab.data());
  EXPECT_EQ(data[0], 42);
  EXPECT_EQ(data[1], -1);
}

TEST(Slab, RejectsWhatDoesNotFit) {
  Slab slab(SpaceSpec{"v", SpaceKind::kVector, DType::kInt64, {3}}, 1);
  EXPECT_EQ(slab.Write(0, Observation(std::vector<int64_t>{1, 2})).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(slab.Write(0, Observation(Text{"x"})).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(slab.Write(4, Observation(std::vector<int64_t>{1, 2, 3})).code(),
            StatusCode::kOutOfRange);
}

TEST(Slab, VariableRowsPackIntoValuesAndOffsets) {
  Slab text(SpaceSpec{"t", SpaceKind::kText, DType::kNone, {-1}}, 3);
  ASSERT_FALSE(text.fixed());
  ASSERT_TRUE(text.Write(0, Observation(Text{"ab"})).ok());
  ASSERT_TRUE(text.Write(2, Observation(Text{"cde"})).ok());
  std::string values;
  std::vector<int64_t> offsets;
  text.Pack({2, 0, 1}, &values, &offsets);
  EXPECT_EQ(values, "cdeab");
  EXPECT_EQ(offsets, (std::vector<int64_t>{0, 3, 5, 5}));

  Slab ragged(SpaceSpec{"r", SpaceKind::kRagged, DType::kInt64, {-1}}, 2);
  ASSERT_TRUE(ragged.Write(0, Observation(std::vector<int64_t>{4, 5, 6})).ok());
  ASSERT_TRUE(ragged.Write(1, Observation(std::vector<int64_t>{7})).ok());
  ragged.Pack({0, 1}, &values, &offsets);
  EXPECT_EQ(offsets, (std::vector<int64_t>{0, 3, 4}));
  int64_t last;
  std::memcpy(&last, values.data() + 3 * 8, 8);
  EXPECT_EQ(last, 7);
}

TEST(Slab, FixedSlabsUseTheGivenAllocator) {
  std::vector<size_t> requests;
  auto buffer = std::make_shared<std::vector<int64_t>>(8, -1);
  SlabAllocator allocator = [&](size_t bytes) -> std::shared_ptr<void> {
    requests.push_back(bytes);
    return std::shared_ptr<void>(buffer, buffer->data());
  };
  Slab slab(SpaceSpec{"v", SpaceKind::kVector, DType::kInt64, {4}}, 2, allocator);
  EXPECT_EQ(requests, (std::vector<size_t>{64}));
  EXPECT_EQ(slab.data(), buffer->data());
  EXPECT_EQ((*buffer)[7], 0);  // zeroed
  ASSERT_TRUE(slab.Write(1, Observation(std::vector<int64_t>{1, 2, 3, 4})).ok());
  EXPECT_EQ((*buffer)[7], 4);
  // A failing allocator falls back to the heap.
  Slab fallback(SpaceSpec{"v", SpaceKind::kVector, DType::kInt64, {4}}, 2,
                [](size_t) { return std::shared_ptr<void>(); });
  EXPECT_NE(fallback.data(), nullptr);
}

TEST(Slab, GraphRowsShareTheEnvsGraph) {
  Slab slab(SpaceSpec{"g", SpaceKind::kGraph, DType::kNone, {}}, 2);
  EXPECT_FALSE(slab.fixed());
  auto graph = std::make_shared<Graph>();
  graph->node_type = {0, 1};
  graph->edge_source = {0};
  graph->edge_target = {1};
  ASSERT_TRUE(slab.Write(1, Observation(GraphPtr(graph))).ok());
  EXPECT_EQ(slab.RowGraph(1).get(), graph.get());  // no copy
  EXPECT_EQ(slab.RowGraph(0), nullptr);
  EXPECT_EQ(slab.Write(0, Observation(Text{"x"})).code(), StatusCode::kInvalidArgument);
  slab.Clear(1);
  ASSERT_NE(slab.RowGraph(1), nullptr);  // the space's default: an empty graph
  EXPECT_EQ(slab.RowGraph(1)->num_nodes(), 0);
}

}  // namespace
}  // namespace compiler_gym
