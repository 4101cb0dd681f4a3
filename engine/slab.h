// Slabs: the preallocated output buffers of the vector engine, one row per environment.
//
// A fixed-size space (scalar or vector of numbers) is one contiguous [rows, width] buffer of its
// dtype, ready to hand to PyTorch without a copy. A variable-size space (text, bytes, ragged
// vectors) keeps one byte string per row and is packed into values + offsets on demand; a graph
// space keeps each row's shared Graph, assembled into one batch by torch_ext/batching.h
// (CollateGraphs).
//
//   SlabSet slabs(specs, /*rows=*/num_envs);
//   RETURN_IF_ERROR(slabs.slab(space).Write(row, observation));
//   const Slab& s = slabs.slab(space);  // s.data(), s.shape()
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/space.h"
#include "engine/status.h"

namespace compiler_gym {

// Allocates the memory of fixed slabs (e.g. pinned host memory for fast copies to a GPU); an
// empty function means the ordinary heap.
using SlabAllocator = std::function<std::shared_ptr<void>(size_t bytes)>;

class Slab {
 public:
  Slab(SpaceSpec spec, int64_t rows, const SlabAllocator& allocator = {});

  const SpaceSpec& spec() const { return spec_; }
  bool fixed() const { return fixed_; }
  int64_t rows() const { return rows_; }
  int64_t width() const { return width_; }  // elements per row (fixed slabs)
  size_t element_size() const { return element_size_; }

  // Fixed slabs: the [rows, width] buffer (shape {rows} for scalars).
  void* data() { return bytes_.get(); }
  const void* data() const { return bytes_.get(); }
  std::vector<int64_t> shape() const;

  // Writes an observation into a row. kInvalidArgument when its type or size does not fit.
  Status Write(int64_t row, const Observation& value);
  // Fills a row with zeros (an env whose step failed).
  void Clear(int64_t row);

  // Variable slabs: the raw bytes of a row (text, bytes, or the packed elements of a vector).
  const std::string& RowBytes(int64_t row) const { return variable_[row]; }
  // Graph slabs: the graph of a row (null when cleared).
  const GraphPtr& RowGraph(int64_t row) const { return graphs_[row]; }
  // Packs the given rows into one buffer; offsets has rows.size() + 1 entries, in elements.
  void Pack(const std::vector<int64_t>& rows, std::string* values,
            std::vector<int64_t>* offsets) const;

 private:
  SpaceSpec spec_;
  bool fixed_;
  int64_t rows_;
  int64_t width_ = 1;
  size_t element_size_ = 1;
  std::shared_ptr<unsigned char> bytes_;  // fixed: rows * width elements
  std::vector<std::string> variable_;     // variable
  std::vector<GraphPtr> graphs_;          // kGraph
};

// One slab per observation space, all with the same rows.
class SlabSet {
 public:
  SlabSet(const std::vector<SpaceSpec>& specs, int64_t rows, const SlabAllocator& allocator = {}) {
    slabs_.reserve(specs.size());
    for (const SpaceSpec& spec : specs) slabs_.emplace_back(spec, rows, allocator);
  }
  size_t size() const { return slabs_.size(); }
  Slab& slab(size_t i) { return slabs_[i]; }
  const Slab& slab(size_t i) const { return slabs_[i]; }

 private:
  std::vector<Slab> slabs_;
};

size_t DTypeSize(DType dtype);

}  // namespace compiler_gym
