// Writing observations into slab rows (converted to the slab's dtype, or kept as bytes or a
// shared graph) and packing variable-size rows into values + offsets.
#include "engine/slab.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

namespace compiler_gym {

size_t DTypeSize(DType dtype) {
  switch (dtype) {
    case DType::kInt64:
      return 8;
    case DType::kFloat64:
      return 8;
    case DType::kFloat32:
      return 4;
    case DType::kBool:
      return 1;
    case DType::kUint8:
      return 1;
    case DType::kNone:
      return 1;
  }
  return 1;
}

Slab::Slab(SpaceSpec spec, int64_t rows, const SlabAllocator& allocator)
    : spec_(std::move(spec)), rows_(rows) {
  fixed_ = (spec_.kind == SpaceKind::kScalar || spec_.kind == SpaceKind::kVector) &&
           spec_.dtype != DType::kNone;
  for (int64_t d : spec_.shape) {
    if (d < 0) fixed_ = false;
  }
  element_size_ = DTypeSize(spec_.dtype);
  if (fixed_) {
    for (int64_t d : spec_.shape) width_ *= d;
    const size_t size = static_cast<size_t>(rows_ * width_) * element_size_;
    std::shared_ptr<void> memory = allocator ? allocator(size) : nullptr;
    if (memory == nullptr) {  // the heap, also when a custom allocator fails
      memory = std::shared_ptr<void>(new unsigned char[std::max<size_t>(size, 1)],
                                     [](void* p) { delete[] static_cast<unsigned char*>(p); });
    }
    bytes_ = std::static_pointer_cast<unsigned char>(memory);
    std::memset(bytes_.get(), 0, size);
  } else if (spec_.kind == SpaceKind::kGraph) {
    graphs_.resize(rows_);
  } else {
    variable_.resize(rows_);
  }
}

std::vector<int64_t> Slab::shape() const {
  std::vector<int64_t> shape = {rows_};
  if (spec_.kind == SpaceKind::kVector)
    shape.insert(shape.end(), spec_.shape.begin(), spec_.shape.end());
  return shape;
}

namespace {

// Converts one element to the slab's dtype.
template <typename From>
void Store(DType dtype, unsigned char* out, From value) {
  switch (dtype) {
    case DType::kInt64: {
      int64_t v = static_cast<int64_t>(value);
      std::memcpy(out, &v, 8);
      break;
    }
    case DType::kFloat64: {
      double v = static_cast<double>(value);
      std::memcpy(out, &v, 8);
      break;
    }
    case DType::kFloat32: {
      float v = static_cast<float>(value);
      std::memcpy(out, &v, 4);
      break;
    }
    case DType::kBool:
      *out = value ? 1 : 0;
      break;
    case DType::kUint8:
      *out = static_cast<unsigned char>(value);
      break;
    case DType::kNone:
      break;
  }
}

template <typename T>
std::string PackVector(const std::vector<T>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

}  // namespace

// A row with no observation (an error ended its episode) reads the space's default.
void Slab::Clear(int64_t row) {
  [[maybe_unused]] const Status written = Write(row, DefaultObservation(spec_));
}

Status Slab::Write(int64_t row, const Observation& value) {
  if (row < 0 || row >= rows_) return OutOfRange("slab row out of range");
  if (spec_.kind == SpaceKind::kGraph) {
    const auto* graph = std::get_if<GraphPtr>(&value);
    if (graph == nullptr || *graph == nullptr) {
      return InvalidArgument("observation " + spec_.name + " is not a graph");
    }
    graphs_[row] = *graph;
    return Status::Ok();
  }
  if (!fixed_) {
    std::string& out = variable_[row];
    if (const auto* t = std::get_if<Text>(&value))
      out = t->data;
    else if (const auto* b = std::get_if<Bytes>(&value))
      out = b->data;
    else if (const auto* j = std::get_if<Json>(&value))
      out = j->data;
    else if (const auto* vi = std::get_if<std::vector<int64_t>>(&value))
      out = PackVector(*vi);
    else if (const auto* vf = std::get_if<std::vector<float>>(&value))
      out = PackVector(*vf);
    else if (const auto* vd = std::get_if<std::vector<double>>(&value))
      out = PackVector(*vd);
    else
      return InvalidArgument("observation " + spec_.name + " does not fit a variable slab");
    return Status::Ok();
  }
  unsigned char* out = bytes_.get() + row * width_ * element_size_;
  auto write_all = [&](const auto& values) -> Status {
    if (static_cast<int64_t>(values.size()) != width_) {
      return InvalidArgument("observation " + spec_.name + " has " + std::to_string(values.size()) +
                             " elements, expected " + std::to_string(width_));
    }
    for (size_t i = 0; i < values.size(); ++i)
      Store(spec_.dtype, out + i * element_size_, values[i]);
    return Status::Ok();
  };
  if (const auto* i = std::get_if<int64_t>(&value)) return write_all(std::vector<int64_t>{*i});
  if (const auto* d = std::get_if<double>(&value)) return write_all(std::vector<double>{*d});
  if (const auto* b = std::get_if<bool>(&value)) return write_all(std::vector<int64_t>{*b ? 1 : 0});
  if (const auto* vi = std::get_if<std::vector<int64_t>>(&value)) return write_all(*vi);
  if (const auto* vf = std::get_if<std::vector<float>>(&value)) return write_all(*vf);
  if (const auto* vd = std::get_if<std::vector<double>>(&value)) return write_all(*vd);
  return InvalidArgument("observation " + spec_.name + " does not fit a fixed slab");
}

void Slab::Pack(const std::vector<int64_t>& rows, std::string* values,
                std::vector<int64_t>* offsets) const {
  values->clear();
  offsets->assign(1, 0);
  for (int64_t row : rows) {
    const std::string& bytes = variable_[row];
    values->append(bytes);
    offsets->push_back(offsets->back() + static_cast<int64_t>(bytes.size() / element_size_));
  }
}

}  // namespace compiler_gym
