#include "engine/space.h"

namespace compiler_gym {

const char* SpaceKindName(SpaceKind kind) {
  switch (kind) {
    case SpaceKind::kScalar:
      return "scalar";
    case SpaceKind::kVector:
      return "vector";
    case SpaceKind::kText:
      return "text";
    case SpaceKind::kBytes:
      return "bytes";
    case SpaceKind::kDict:
      return "dict";
    case SpaceKind::kRagged:
      return "ragged";
    case SpaceKind::kGraph:
      return "graph";
  }
  return "unknown";
}

const char* DTypeName(DType dtype) {
  switch (dtype) {
    case DType::kNone:
      return "none";
    case DType::kInt64:
      return "int64";
    case DType::kFloat32:
      return "float32";
    case DType::kFloat64:
      return "float64";
    case DType::kBool:
      return "bool";
    case DType::kUint8:
      return "uint8";
  }
  return "unknown";
}

bool ObservationAsDouble(const Observation& observation, double* out) {
  if (const auto* i = std::get_if<int64_t>(&observation)) {
    *out = static_cast<double>(*i);
    return true;
  }
  if (const auto* d = std::get_if<double>(&observation)) {
    *out = *d;
    return true;
  }
  if (const auto* b = std::get_if<bool>(&observation)) {
    *out = *b ? 1.0 : 0.0;
    return true;
  }
  return false;
}

}  // namespace compiler_gym
