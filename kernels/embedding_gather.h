// Embedding gather: ragged vocabulary indices -> a padded [G, L, D] float32 tensor of embeddings,
// with the table resident on the device. The CPU twin (oneTBB) and the CUDA kernel give
// identical results.
//
//   ASSIGN_OR_RETURN(EmbeddingTable table,
//                    EmbeddingTable::Create(values, rows, dim, Device::kCuda));  // once
//   ASSIGN_OR_RETURN(PaddedEmbeddings out, GatherEmbeddings(table, indices, offsets));
//   // out.values: float32 [G, L, D] on the table's device; out.lengths: int64 [G]
#pragma once

#include <cstdint>
#include <span>

#include "engine/status.h"
#include "kernels/device.h"

namespace compiler_gym::kernels {

// A [rows, dim] float32 table, uploaded once to its device. Create waits for the upload, so
// gathers on any stream may use the table; keep it alive until they are done.
class EmbeddingTable {
 public:
  // kInvalidArgument unless rows >= 0, dim > 0 and values holds rows * dim floats;
  // kUnavailable when `device` is unavailable.
  static StatusOr<EmbeddingTable> Create(std::span<const float> values, int64_t rows, int64_t dim,
                                         Device device);
  int64_t rows() const { return rows_; }
  int64_t dim() const { return dim_; }
  Device device() const { return values_.device(); }
  const float* data() const { return values_.as<const float>(); }

 private:
  DeviceBuffer values_;
  int64_t rows_ = 0;
  int64_t dim_ = 0;
};

struct PaddedEmbeddings {
  int64_t num_sequences = 0;  // G
  int64_t max_length = 0;     // L
  int64_t dim = 0;            // D
  DeviceBuffer values;        // float32 [G, L, D], zeros past each sequence's length
  DeviceBuffer lengths;       // int64 [G], min(sequence length, L)
};

// `indices` holds the sequences back to back; `offsets` [G + 1] delimits them (offsets[0] == 0,
// non-decreasing, offsets[G] == indices.size()). `max_length` 0 pads to the longest sequence;
// otherwise longer sequences are truncated. kInvalidArgument for an index outside the table
// (truncated positions included) or bad offsets, checked on the host before any launch. Runs on
// the table's device; on CUDA the result is queued on `stream` (nullptr: the engine stream) and
// the call returns without waiting for it.
StatusOr<PaddedEmbeddings> GatherEmbeddings(const EmbeddingTable& table,
                                            std::span<const int64_t> indices,
                                            std::span<const int64_t> offsets,
                                            int64_t max_length = 0, void* stream = nullptr);

}  // namespace compiler_gym::kernels
