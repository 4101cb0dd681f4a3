// SpaceSpec: plain data describing one action, observation or reward space, and Observation,
// the value an environment returns for an observation space.
//
// Environments describe their spaces with tables of these rows; the Python package builds
// gymnasium spaces from them, so no space is described twice.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace compiler_gym {

enum class SpaceKind {
  kScalar,  // one number: shape {}
  kVector,  // fixed-length vector: shape {D}
  kText,    // UTF-8/ASCII text
  kBytes,   // opaque bytes (e.g. bitcode)
  kDict,    // a JSON object, text-encoded (e.g. CpuInfo, InstCountDict)
  kRagged,  // variable-length: shape {-1} or {-1, D} (rows of D values)
  kGraph,   // a Graph (ProGraML); batched as PyTorch Geometric-style tensors
};

enum class DType { kNone, kInt64, kFloat32, kFloat64, kBool, kUint8 };

const char* SpaceKindName(SpaceKind kind);
const char* DTypeName(DType dtype);

// A struct's fields are listed once, as FIELD(type, name, default value) rows: the struct is
// declared from its list, and torch_ext/module.cc exports every field to Python from the same
// list, so that a new field is one edit here. Tables fill rows by field name:
//   SpaceSpec{.name = "Autophase", .kind = SpaceKind::kVector, .dtype = DType::kInt64,
//             .shape = {56}, .low = 0, .doc = "56 Autophase features."}
#define COMPILER_GYM_DECLARE_FIELD(type, name, value) type name = value;

#define COMPILER_GYM_SPACE_SPEC_FIELDS(FIELD)                                          \
  FIELD(std::string, name, {})                                                         \
  FIELD(SpaceKind, kind, SpaceKind::kScalar)                                           \
  FIELD(DType, dtype, DType::kNone)                                                    \
  /* {} for a scalar; -1 is a dimension of any length */                               \
  FIELD(std::vector<int64_t>, shape, {})                                               \
  FIELD(double, low, -std::numeric_limits<double>::infinity())                         \
  FIELD(double, high, std::numeric_limits<double>::infinity())                         \
  FIELD(bool, deterministic, true)                                                     \
  FIELD(bool, platform_dependent, false)                                               \
  FIELD(std::string, doc, {})                                                          \
  /* What a scalar observation reads when an error ended the episode (CompilerGym's */ \
  /* default_observation: 0, but -1 for GCC's sizes, where 0 would be a real size). */ \
  FIELD(double, scalar_default, 0)

struct SpaceSpec {
  COMPILER_GYM_SPACE_SPEC_FIELDS(COMPILER_GYM_DECLARE_FIELD)
};

// A discrete action space: each action has a name (e.g. an LLVM pass flag).
struct ActionSpaceSpec {
  std::string name;
  std::vector<std::string> action_names;
  std::string doc;
  // Taken only when asked for by name: a recorded state's replay does not fall back to it
  // (LLVM's passes with confirmed miscompiles).
  bool opt_in = false;
};

// How a cost-based reward turns costs into a reward. With C the current cost, prev the cost
// when this reward was last computed (C0 at the start of the episode), Cb a baseline cost:
//   kDelta:           prev - C
//   kNormByInitial:   (prev - C) / C0
//   kNormByBaseline:  (prev - C) / max(C0 - Cb, 1)
enum class RewardKind { kDelta, kNormByInitial, kNormByBaseline };

const char* RewardKindName(RewardKind kind);

#define COMPILER_GYM_REWARD_SPEC_FIELDS(FIELD)                                                  \
  FIELD(std::string, name, {})                                                                  \
  FIELD(std::string, cost_observation, {})    /* scalar observation giving C */                 \
  FIELD(std::string, initial_observation, {}) /* scalar observation giving C0 (unoptimized) */  \
  /* scalar observation giving Cb; empty unless kNormByBaseline */                              \
  FIELD(std::string, baseline_observation, {})                                                  \
  FIELD(RewardKind, kind, RewardKind::kDelta)                                                   \
  FIELD(bool, deterministic, true)                                                              \
  FIELD(bool, platform_dependent, false)                                                        \
  FIELD(double, low, -std::numeric_limits<double>::infinity())                                  \
  FIELD(double, high, std::numeric_limits<double>::infinity())                                  \
  FIELD(std::string, doc, {})                                                                   \
  /* The observation is a gain to maximize (e.g. FLOP/s), not a cost: C is its negation, and */ \
  /* an empty initial_observation means C0 = 0, so the first reward is the gain itself. */      \
  FIELD(bool, maximize, false)                                                                  \
  /* The episode reward at which a search may stop (CompilerGym's success_threshold: 1.0 */     \
  /* for rewards relative to -Oz, which then equal -Oz); none by default. */                    \
  FIELD(std::optional<double>, success_threshold, std::nullopt)

struct RewardSpec {
  COMPILER_GYM_REWARD_SPEC_FIELDS(COMPILER_GYM_DECLARE_FIELD)
};

struct Bytes {
  std::string data;
  friend bool operator==(const Bytes& a, const Bytes& b) { return a.data == b.data; }
};

struct Text {
  std::string data;
  friend bool operator==(const Text& a, const Text& b) { return a.data == b.data; }
};

// kDict observations travel as JSON text.
struct Json {
  std::string data;
  friend bool operator==(const Json& a, const Json& b) { return a.data == b.data; }
};

// A kGraph observation: a directed multigraph with typed nodes and edges, as parallel arrays.
// Environments define what the ids mean (for ProGraML: node types, flows, vocabulary ids).
struct Graph {
  std::vector<int64_t> node_type;
  std::vector<int64_t> node_text_id;  // the node text's id in the env's vocabulary
  std::vector<int64_t> node_function;
  std::vector<int64_t> node_block;
  std::vector<std::string> node_text;
  std::vector<std::string> node_full_text;
  std::vector<int64_t> edge_source;
  std::vector<int64_t> edge_target;
  std::vector<int64_t> edge_flow;
  std::vector<int64_t> edge_position;
  int64_t num_nodes() const { return static_cast<int64_t>(node_type.size()); }
  int64_t num_edges() const { return static_cast<int64_t>(edge_source.size()); }
  friend bool operator==(const Graph&, const Graph&) = default;
};
// Shared so that slabs and Python hold a graph without copying it.
using GraphPtr = std::shared_ptr<const Graph>;

using Observation =
    std::variant<std::monostate, int64_t, double, bool, Text, Bytes, Json, std::vector<int64_t>,
                 std::vector<float>, std::vector<double>, GraphPtr>;

// What an observation of the space reads when an error ended the episode: zeros of a fixed
// shape, nothing of a variable one, empty text, bytes, JSON object and graph, and a scalar's
// scalar_default. The one definition of defaults: the vector engine's slabs and the single env
// both use it.
Observation DefaultObservation(const SpaceSpec& spec);

// Scalar view of an observation, for costs. A vector of doubles (repeated measurements, such as
// Runtime) gives its median. Returns false if there is no number: another type, or no values.
bool ObservationAsDouble(const Observation& observation, double* out);

// The median of `values` (the mean of the middle two for an even count); NaN when empty.
double Median(std::vector<double> values);

}  // namespace compiler_gym
