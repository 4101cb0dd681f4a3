// Names of the space enums, and the values observations take by default.
#include "engine/space.h"

#include <algorithm>
#include <limits>

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

const char* RewardKindName(RewardKind kind) {
  switch (kind) {
    case RewardKind::kDelta:
      return "delta";
    case RewardKind::kNormByInitial:
      return "norm_by_initial";
    case RewardKind::kNormByBaseline:
      return "norm_by_baseline";
  }
  return "unknown";
}

namespace {
template <typename T>
Observation Elements(const SpaceSpec& spec, T value) {
  if (spec.kind == SpaceKind::kScalar) return Observation(value);
  int64_t n = 1;
  for (int64_t d : spec.shape) n = d < 0 ? 0 : n * d;  // a variable shape has no elements
  return Observation(std::vector<T>(static_cast<size_t>(n), value));
}
}  // namespace

Observation DefaultObservation(const SpaceSpec& spec) {
  switch (spec.kind) {
    case SpaceKind::kText:
      return Text{};
    case SpaceKind::kBytes:
      return Bytes{};
    case SpaceKind::kDict:
      return Json{"{}"};
    case SpaceKind::kGraph: {
      static const GraphPtr empty = std::make_shared<const Graph>();
      return empty;
    }
    case SpaceKind::kScalar:
    case SpaceKind::kVector:
    case SpaceKind::kRagged:
      break;
  }
  const double zero = spec.kind == SpaceKind::kScalar ? spec.scalar_default : 0.0;
  switch (spec.dtype) {
    case DType::kFloat32:
      if (spec.kind != SpaceKind::kScalar) return Elements<float>(spec, 0.0f);
      return Observation(zero);  // scalars travel as double
    case DType::kFloat64:
      return Elements<double>(spec, zero);
    case DType::kBool:
      if (spec.kind == SpaceKind::kScalar) return Observation(zero != 0);
      return Elements<int64_t>(spec, 0);
    case DType::kInt64:
    case DType::kUint8:
    case DType::kNone:
      break;
  }
  return Elements<int64_t>(spec, static_cast<int64_t>(zero));
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
  if (const auto* v = std::get_if<std::vector<double>>(&observation); v && !v->empty()) {
    *out = Median(*v);
    return true;
  }
  return false;
}

double Median(std::vector<double> values) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  const size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + mid, values.end());
  if (values.size() % 2 == 1) return values[mid];
  const double upper = values[mid];
  const double lower = *std::max_element(values.begin(), values.begin() + mid);
  return (lower + upper) / 2;
}

}  // namespace compiler_gym
