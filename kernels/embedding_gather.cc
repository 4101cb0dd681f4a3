// Validation of a gather's input (shared with the CUDA path, before any launch), uploading an
// embedding table, the CPU twin (oneTBB over sequences) and the dispatch to either path.
#include "kernels/embedding_gather.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>
#include <string>

#include "kernels/internal.h"

namespace compiler_gym::kernels {
namespace internal {
namespace {

// OK when every index of sequence g is a row of the table.
Status CheckSequence(int64_t table_rows, std::span<const int64_t> indices,
                     std::span<const int64_t> offsets, int64_t g) {
  for (int64_t i = offsets[g]; i < offsets[g + 1]; ++i) {
    if (indices[i] < 0 || indices[i] >= table_rows) {
      return InvalidArgument("sequence " + std::to_string(g) + ", position " +
                             std::to_string(i - offsets[g]) + ": index " +
                             std::to_string(indices[i]) + " is outside the table of " +
                             std::to_string(table_rows) + " rows");
    }
  }
  return Status::Ok();
}

}  // namespace

StatusOr<GatherLayout> ValidateGatherInput(int64_t table_rows, int64_t dim,
                                           std::span<const int64_t> indices,
                                           std::span<const int64_t> offsets, int64_t max_length) {
  if (offsets.empty()) return InvalidArgument("offsets is empty; it needs G + 1 entries");
  if (offsets[0] != 0) {
    return InvalidArgument("offsets must start at 0, not " + std::to_string(offsets[0]));
  }
  for (size_t g = 1; g < offsets.size(); ++g) {
    if (offsets[g] < offsets[g - 1]) {
      return InvalidArgument("offsets decrease at sequence " + std::to_string(g - 1) + ": " +
                             std::to_string(offsets[g - 1]) + " then " +
                             std::to_string(offsets[g]));
    }
  }
  if (offsets.back() != static_cast<int64_t>(indices.size())) {
    return InvalidArgument("offsets end at " + std::to_string(offsets.back()) + " but there are " +
                           std::to_string(indices.size()) + " indices");
  }
  if (max_length < 0) {
    return InvalidArgument("max_length must be >= 0, not " + std::to_string(max_length));
  }

  GatherLayout layout;
  layout.num_sequences = static_cast<int64_t>(offsets.size()) - 1;
  int64_t longest = 0;
  for (int64_t g = 0; g < layout.num_sequences; ++g) {
    longest = std::max(longest, offsets[g + 1] - offsets[g]);
  }
  layout.max_length = max_length == 0 ? longest : max_length;
  layout.lengths.resize(layout.num_sequences);
  for (int64_t g = 0; g < layout.num_sequences; ++g) {
    layout.lengths[g] = std::min(offsets[g + 1] - offsets[g], layout.max_length);
  }
  int64_t elements = 0;
  if (__builtin_mul_overflow(layout.num_sequences, layout.max_length, &elements) ||
      __builtin_mul_overflow(elements, dim, &elements) ||
      elements > std::numeric_limits<int64_t>::max() / static_cast<int64_t>(sizeof(float))) {
    return ResourceExhausted("a padded batch of " + std::to_string(layout.num_sequences) + " x " +
                             std::to_string(layout.max_length) + " x " + std::to_string(dim) +
                             " floats is too large");
  }

  // Every index is checked, truncated ones included: an index outside the table is a bug
  // upstream wherever it sits. In parallel; the first bad sequence is reported.
  std::atomic<int64_t> first_bad{layout.num_sequences};
  tbb::parallel_for(tbb::blocked_range<int64_t>(0, layout.num_sequences),
                    [&](const tbb::blocked_range<int64_t>& range) {
                      for (int64_t g = range.begin(); g != range.end(); ++g) {
                        if (CheckSequence(table_rows, indices, offsets, g).ok()) continue;
                        int64_t seen = first_bad.load();
                        while (g < seen && !first_bad.compare_exchange_weak(seen, g)) {
                        }
                        return;
                      }
                    });
  if (first_bad.load() < layout.num_sequences) {
    return CheckSequence(table_rows, indices, offsets, first_bad.load());
  }
  return layout;
}

}  // namespace internal

StatusOr<EmbeddingTable> EmbeddingTable::Create(std::span<const float> values, int64_t rows,
                                                int64_t dim, Device device) {
  if (rows < 0 || dim <= 0) {
    return InvalidArgument("an embedding table needs rows >= 0 and dim > 0, not " +
                           std::to_string(rows) + " x " + std::to_string(dim));
  }
  int64_t elements = 0;
  if (__builtin_mul_overflow(rows, dim, &elements) ||
      static_cast<int64_t>(values.size()) != elements) {
    return InvalidArgument("an embedding table of " + std::to_string(rows) + " x " +
                           std::to_string(dim) + " needs that many values, not " +
                           std::to_string(values.size()));
  }
  RETURN_IF_ERROR(CheckDevice(device));
  EmbeddingTable table;
  table.rows_ = rows;
  table.dim_ = dim;
  ASSIGN_OR_RETURN(table.values_,
                   DeviceBuffer::FromHost(values.data(), values.size_bytes(), device));
  // Gathers may run on any stream: make the upload visible to all of them once, here.
  if (device == Device::kCuda) RETURN_IF_ERROR(SynchronizeStream(table.values_.stream()));
  return table;
}

namespace {

StatusOr<PaddedEmbeddings> GatherEmbeddingsCpu(const EmbeddingTable& table,
                                               std::span<const int64_t> indices,
                                               std::span<const int64_t> offsets,
                                               const internal::GatherLayout& layout) {
  PaddedEmbeddings out;
  out.num_sequences = layout.num_sequences;
  out.max_length = layout.max_length;
  out.dim = table.dim();
  const int64_t dim = table.dim();
  const int64_t length = layout.max_length;
  ASSIGN_OR_RETURN(out.values, DeviceBuffer::Allocate(Device::kCpu, layout.num_sequences * length *
                                                                        dim * sizeof(float)));
  ASSIGN_OR_RETURN(out.lengths,
                   DeviceBuffer::FromHost(layout.lengths.data(),
                                          layout.lengths.size() * sizeof(int64_t), Device::kCpu));
  float* values = out.values.as<float>();
  const float* rows = table.data();
  tbb::parallel_for(tbb::blocked_range<int64_t>(0, layout.num_sequences),
                    [&](const tbb::blocked_range<int64_t>& range) {
                      for (int64_t g = range.begin(); g != range.end(); ++g) {
                        float* sequence = values + g * length * dim;
                        const int64_t used = layout.lengths[g];
                        for (int64_t p = 0; p < used; ++p) {
                          std::memcpy(sequence + p * dim, rows + indices[offsets[g] + p] * dim,
                                      dim * sizeof(float));
                        }
                        std::fill(sequence + used * dim, sequence + length * dim, 0.0f);
                      }
                    });
  return out;
}

}  // namespace

StatusOr<PaddedEmbeddings> GatherEmbeddings(const EmbeddingTable& table,
                                            std::span<const int64_t> indices,
                                            std::span<const int64_t> offsets, int64_t max_length,
                                            void* stream) {
  NvtxRange range("GatherEmbeddings");
  RETURN_IF_ERROR(CheckDevice(table.device()));
  ASSIGN_OR_RETURN(
      internal::GatherLayout layout,
      internal::ValidateGatherInput(table.rows(), table.dim(), indices, offsets, max_length));
  if (table.device() == Device::kCpu) {
    return GatherEmbeddingsCpu(table, indices, offsets, layout);
  }
#ifdef CG_WITH_CUDA
  return internal::GatherEmbeddingsCuda(table, indices, offsets, layout, stream);
#else
  return Internal("unreachable: CheckDevice accepted cuda in a build without CUDA");
#endif
}

}  // namespace compiler_gym::kernels
