// compiler_gym._C.VecEnv: make_vec's arguments to a VecEnv (in process or one worker per env),
// and each batch to Python values (NumPy views, DLPack arrays on the GPU, graph batches).
#include "torch_ext/vec_env_binding.h"

#include <dlfcn.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <chrono>
#include <cstring>
#include <limits>
#include <map>
#include <thread>

#include "engine/vec_env.h"
#include "engine/worker.h"
#include "envs/all_envs.h"
#include "kernels/device.h"
#include "torch_ext/batching.h"
#include "torch_ext/dlpack_export.h"
#include "torch_ext/errors.h"
#include "torch_ext/numpy_util.h"

namespace py = pybind11;

namespace compiler_gym::python {
namespace {

// The worker executable lies beside this module, in the build tree and once installed.
std::string WorkerPath() {
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&WorkerPath), &info) == 0 || info.dli_fname == nullptr) {
    return "compiler_gym-worker";
  }
  std::string path = info.dli_fname;
  return path.substr(0, path.rfind('/') + 1) + "compiler_gym-worker";
}

}  // namespace

StatusOr<std::unique_ptr<Env>> MakeEnv(
    const std::string& id, const std::string& isolation,
    const std::vector<std::pair<std::string, std::string>>& parameters) {
  const EnvEntry* entry = AllEnvs().Find(id);
  if (entry == nullptr) return NotFound("unknown environment id " + id);
  if (isolation != "none" && isolation != "process") {
    return InvalidArgument("isolation must be 'none' or 'process', got '" + isolation + "'");
  }
  std::unique_ptr<Env> env = entry->factory();
  const bool isolated = isolation == "process";
  // "action_space" (a space's name) is the engine's, not a family's: it selects the space that
  // actions index, here and, through every step's request, in a worker.
  std::string action_space;
  // A family's spaces may depend on its parameters (gcc_bin): a local instance with the
  // family's parameters describes a remote one.
  for (const auto& [name, value] : parameters) {
    if (name == "action_space") {
      action_space = value;
    } else if (!(isolated && name.starts_with("worker."))) {
      RETURN_IF_ERROR(env->SetParameter(name, value));
    }
  }
  int space = 0;
  if (!action_space.empty()) {
    space = env->Spec().ActionSpaceIndex(action_space);
    if (space < 0) return InvalidArgument("unknown action space " + action_space);
  }
  if (!isolated) {
    RETURN_IF_ERROR(env->SetActionSpace(space));
    return env;
  }
  static const std::string worker = WorkerPath();
  ASSIGN_OR_RETURN(std::unique_ptr<Env> remote,
                   MakeRemoteEnv({.worker_path = worker, .env_id = id}, env->Spec()));
  for (const auto& [name, value] : parameters) {
    if (name != "action_space") RETURN_IF_ERROR(remote->SetParameter(name, value));
  }
  RETURN_IF_ERROR(remote->SetActionSpace(space));
  return remote;
}

namespace {

py::dtype NumpyDtype(DType dtype) {
  switch (dtype) {
    case DType::kInt64:
      return py::dtype::of<int64_t>();
    case DType::kFloat32:
      return py::dtype::of<float>();
    case DType::kFloat64:
      return py::dtype::of<double>();
    case DType::kBool:
      return py::dtype::of<bool>();
    default:
      return py::dtype::of<uint8_t>();
  }
}

// A fixed slab as a NumPy array viewing the slab's memory; the array keeps the slab set alive,
// and the engine does not reuse a slab set while anything holds it.
py::object SlabArray(const std::shared_ptr<SlabSet>& slabs, size_t k) {
  Slab& slab = slabs->slab(k);
  auto* keep = new std::shared_ptr<SlabSet>(slabs);
  py::capsule owner(keep, [](void* p) { delete static_cast<std::shared_ptr<SlabSet>*>(p); });
  const std::vector<int64_t> slab_shape = slab.shape();
  std::vector<py::ssize_t> shape(slab_shape.begin(), slab_shape.end());
  return py::array(NumpyDtype(slab.spec().dtype), shape, slab.data(), owner);
}

// A variable slab: a list of str (text), bytes, or 1-D arrays (ragged numbers).
py::object SlabList(const Slab& slab) {
  py::list out;
  for (int64_t row = 0; row < slab.rows(); ++row) {
    const std::string& bytes = slab.RowBytes(row);
    switch (slab.spec().kind) {
      case SpaceKind::kText:
      case SpaceKind::kDict:
        out.append(py::str(bytes));
        break;
      case SpaceKind::kBytes:
        out.append(py::bytes(bytes));
        break;
      default: {
        const size_t n = bytes.size() / DTypeSize(slab.spec().dtype);
        // The shape as a vector: a braced {n} picked the deprecated array(handle, bool).
        py::array array(NumpyDtype(slab.spec().dtype),
                        std::vector<py::ssize_t>{static_cast<py::ssize_t>(n)});
        std::memcpy(array.mutable_data(), bytes.data(), bytes.size());
        out.append(array);
      }
    }
  }
  return out;
}

py::object Array(kernels::DeviceBuffer buffer, DType dtype, std::vector<int64_t> shape) {
  return py::cast(DeviceArray(std::move(buffer), dtype, std::move(shape)));
}

// How the slabs of one batch become Python values: fixed slabs as arrays (NumPy views on the
// CPU, one copy per batch to the GPU), ragged numbers as values + offsets, graphs as a PyTorch
// Geometric-style batch, and embedding indices as padded embeddings.
struct Outputs {
  kernels::Device device = kernels::Device::kCpu;
  // Spaces gathered through an embedding table: slab index -> table.
  std::map<size_t, std::shared_ptr<kernels::EmbeddingTable>> gathers;

  py::object Fixed(const std::shared_ptr<SlabSet>& slabs, size_t k) const {
    if (device == kernels::Device::kCpu) return SlabArray(slabs, k);
    const Slab& slab = slabs->slab(k);
    auto buffer = WithoutGil([&] {
      return kernels::DeviceBuffer::FromHost(slab.data(),
                                             slab.rows() * slab.width() * slab.element_size(),
                                             device, kernels::EngineStream());
    });
    return Array(ValueOrThrow(std::move(buffer)), slab.spec().dtype, slab.shape());
  }

  py::object Graphs(const Slab& slab) const {
    kernels::GraphBatch g = ValueOrThrow(
        WithoutGil([&] { return batching::CollateGraphs(slab, device, kernels::EngineStream()); }));
    py::dict d;
    d["x"] = Array(g.x, DType::kInt64, {g.num_nodes});
    d["node_type"] = Array(g.node_type, DType::kInt64, {g.num_nodes});
    d["edge_index"] = Array(g.edge_index, DType::kInt64, {2, g.num_edges});
    d["edge_flow"] = Array(g.edge_flow, DType::kInt64, {g.num_edges});
    d["edge_position"] = Array(g.edge_position, DType::kInt64, {g.num_edges});
    d["batch"] = Array(g.batch, DType::kInt64, {g.num_nodes});
    d["ptr"] = Array(g.ptr, DType::kInt64, {g.num_graphs + 1});
    py::list row_ptr, col, edge;
    for (int f = 0; f < kernels::kNumGraphFlows; ++f) {
      row_ptr.append(Array(g.csr_row_ptr[f], DType::kInt64, {g.num_nodes + 1}));
      col.append(Array(g.csr_col[f], DType::kInt64, {g.flow_edges[f]}));
      edge.append(Array(g.csr_edge[f], DType::kInt64, {g.flow_edges[f]}));
    }
    d["csr_row_ptr"] = row_ptr;
    d["csr_col"] = col;
    d["csr_edge"] = edge;
    return d;
  }

  py::object Ragged(const Slab& slab) const {
    batching::RaggedBatch r = ValueOrThrow(
        WithoutGil([&] { return batching::PackRagged(slab, device, kernels::EngineStream()); }));
    std::vector<int64_t> shape = {r.num_values};
    shape.insert(shape.end(), r.row_shape.begin(), r.row_shape.end());
    py::dict d;
    d["values"] = Array(r.values, slab.spec().dtype, shape);
    d["offsets"] = Array(r.offsets, DType::kInt64, {r.rows + 1});
    return d;
  }

  py::object Gathered(const Slab& slab, const kernels::EmbeddingTable& table) const {
    kernels::PaddedEmbeddings p = ValueOrThrow(WithoutGil(
        [&] { return batching::GatherEmbeddingRows(slab, table, 0, kernels::EngineStream()); }));
    py::dict d;
    d["values"] = Array(p.values, DType::kFloat32, {p.num_sequences, p.max_length, p.dim});
    d["lengths"] = Array(p.lengths, DType::kInt64, {p.num_sequences});
    return d;
  }

  py::list operator()(const std::shared_ptr<SlabSet>& slabs) const {
    py::list out;
    if (!slabs) return out;
    // The engine may refill these pinned slabs once this batch is released: the copies from
    // them must be done by then.
    struct SyncCopies {
      kernels::Device device;
      ~SyncCopies() {
        if (device == kernels::Device::kCuda)
          (void)kernels::SynchronizeStream(kernels::EngineStream());
      }
    } sync{device};
    for (size_t k = 0; k < slabs->size(); ++k) {
      const Slab& slab = slabs->slab(k);
      if (auto it = gathers.find(k); it != gathers.end()) {
        out.append(Gathered(slab, *it->second));
      } else if (slab.fixed()) {
        out.append(Fixed(slabs, k));
      } else if (slab.spec().kind == SpaceKind::kGraph) {
        out.append(Graphs(slab));
      } else if (slab.spec().dtype != DType::kNone) {
        out.append(Ragged(slab));
      } else {
        out.append(SlabList(slab));
      }
    }
    return out;
  }
};

py::dict BatchToDict(const BatchPtr& batch, size_t num_rewards, const Outputs& outputs) {
  py::dict d;
  const auto rows = static_cast<py::ssize_t>(batch->rows());
  d["env_ids"] = Own(batch->env_ids, {rows});
  d["rewards"] = Own(batch->rewards, {rows, static_cast<py::ssize_t>(num_rewards)});
  d["terminated"] = Own(batch->terminated, {rows}).attr("astype")("bool");
  d["truncated"] = Own(batch->truncated, {rows}).attr("astype")("bool");
  d["action_had_no_effect"] = Own(batch->action_had_no_effect, {rows}).attr("astype")("bool");
  d["elapsed_steps"] = Own(batch->elapsed_steps, {rows});
  d["episode"] = Own(batch->episode, {rows});
  d["is_reset"] = Own(batch->is_reset, {rows}).attr("astype")("bool");
  py::list error_types, error_details;
  for (const Status& e : batch->errors) {
    error_types.append(e.ok() ? "" : std::string(StatusCodeName(e.code())));
    error_details.append(LenientStr(e.message()));
  }
  d["error_type"] = error_types;
  d["error_details"] = error_details;
  // The handoff: batching the slabs (graph collation, gathers, packing) and exporting them.
  const auto start = std::chrono::steady_clock::now();
  kernels::NvtxRange range("VecEnv.handoff");
  d["observations"] = outputs(batch->slabs);
  if (batch->final_slabs) d["final_observations"] = outputs(batch->final_slabs);
  d["handoff_seconds"] =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return d;
}

// A family's embedding table, resident on the device.
StatusOr<std::shared_ptr<kernels::EmbeddingTable>> DeviceTable(const GatheredSpace& gathered,
                                                               kernels::Device device) {
  ASSIGN_OR_RETURN(const HostTable host, gathered.table());
  ASSIGN_OR_RETURN(kernels::EmbeddingTable table,
                   kernels::EmbeddingTable::Create(host.values, host.rows, host.dim, device));
  return std::make_shared<kernels::EmbeddingTable>(std::move(table));
}

// Actions (or env ids) from any integer array of the expected shape: `rows` entries, each of
// `k` values, as [rows] (k = 1) or [rows, k]. Floats and bools are refused rather than
// truncated, and values outside int's range rather than wrapped; the engine checks the range
// of the action space itself.
std::vector<int> IntegerRows(const py::array& array, const char* what, int64_t rows, int64_t k) {
  const char kind = array.dtype().kind();
  if (kind != 'i' && kind != 'u') {
    RaiseStatus(InvalidArgument(std::string(what) + " must be integers, got dtype " +
                                std::string(py::str(array.dtype()))));
  }
  const bool flat = array.ndim() == 1 && array.shape(0) == rows && k == 1;
  const bool matrix = array.ndim() == 2 && array.shape(0) == rows && array.shape(1) == k;
  if (!flat && !matrix) {
    std::string shape;
    for (py::ssize_t d = 0; d < array.ndim(); ++d) {
      shape += (d ? ", " : "") + std::to_string(array.shape(d));
    }
    RaiseStatus(InvalidArgument(std::string(what) + " must have shape [" + std::to_string(rows) +
                                (k == 1 ? "" : ", " + std::to_string(k)) + "], got [" + shape +
                                "]"));
  }
  std::vector<int> out(static_cast<size_t>(rows * k));
  auto check = [&](auto value, size_t i) {
    if (value < std::numeric_limits<int>::min() || value > std::numeric_limits<int>::max()) {
      RaiseStatus(
          OutOfRange(std::string(what) + " value " + std::to_string(value) + " is out of range"));
    }
    out[i] = static_cast<int>(value);
  };
  if (kind == 'u') {
    auto values = py::array_t < uint64_t,
         py::array::c_style | py::array::forcecast > ::ensure(array);
    for (size_t i = 0; i < out.size(); ++i) {
      const uint64_t v = values.data()[i];
      if (v > static_cast<uint64_t>(std::numeric_limits<int>::max())) {
        RaiseStatus(
            OutOfRange(std::string(what) + " value " + std::to_string(v) + " is out of range"));
      }
      out[i] = static_cast<int>(v);
    }
  } else {
    auto values = py::array_t < int64_t,
         py::array::c_style | py::array::forcecast > ::ensure(array);
    for (size_t i = 0; i < out.size(); ++i) check(values.data()[i], i);
  }
  return out;
}

class PyVecEnv {
 public:
  PyVecEnv(const std::string& env_id, std::vector<Benchmark> benchmarks, bool random_benchmarks,
           VecEnvConfig config, kernels::Device device, const std::string& isolation,
           std::vector<std::pair<std::string, std::string>> parameters) {
    if (benchmarks.empty()) RaiseStatus(InvalidArgument("make_vec() needs at least one benchmark"));
    if (AllEnvs().Find(env_id) == nullptr) {
      RaiseStatus(NotFound("unknown environment id " + env_id));
    }
    auto factory = [env_id, isolation, parameters]() {
      return MakeEnv(env_id, isolation, parameters);
    };
    if (isolation == "process" && config.num_threads == 0) {
      // A thread of an isolated batch mostly waits for its worker's reply: with twice as many
      // threads as cores, one thread's wait overlaps another's worker computing (see
      // benchmarks/vec_env_throughput.py and docs/design.md for the measurements).
      config.num_threads = 2 * static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    }
    // Benchmarks are chosen in C++ on the workers: no Python call, no GIL, per-env RNG.
    auto sampler = [benchmarks, random_benchmarks](int env_id, int64_t,
                                                   std::mt19937_64& rng) -> Benchmark {
      if (random_benchmarks) return benchmarks[rng() % benchmarks.size()];
      return benchmarks[env_id % benchmarks.size()];
    };
    outputs_.device = device;
    ThrowIfError(kernels::CheckDevice(device));
    if (device == kernels::Device::kCuda) {
      // Pinned slabs: the one copy per batch to the GPU is a true asynchronous DMA.
      config.slab_allocator = [](size_t bytes) -> std::shared_ptr<void> {
        auto buffer =
            kernels::DeviceBuffer::Allocate(kernels::Device::kCpu, bytes, /*pinned=*/true);
        return buffer.ok() ? buffer->shared() : nullptr;
      };
    }
    // The family's embedding spaces are batched as one gather from a table resident on the
    // device, from the envs' vocabulary indices, rather than as per-env copies.
    const FamilyEntry* family = AllEnvs().FindFamily(AllEnvs().Find(env_id)->family);
    for (size_t k = 0; k < config.observation_spaces.size(); ++k) {
      for (const GatheredSpace& gathered : family->gathered_spaces) {
        if (config.observation_spaces[k] != gathered.space) continue;
        config.observation_spaces[k] = gathered.indices_space;
        outputs_.gathers[k] = ValueOrThrow(DeviceTable(gathered, device));
      }
    }
    num_rewards_ = config.reward_spaces.size();
    vec_ = ValueOrThrow(VecEnv::Create(factory, sampler, std::move(config)));
  }

  py::dict Reset(std::optional<std::vector<uint8_t>> mask,
                 std::optional<std::vector<std::optional<uint64_t>>> seeds) {
    std::vector<uint8_t> m = mask.value_or(std::vector<uint8_t>{});
    std::vector<std::optional<uint64_t>> s = seeds.value_or(std::vector<std::optional<uint64_t>>{});
    BatchPtr batch = ValueOrThrow(WithoutGilLocked(mu_, [&] {
      kernels::NvtxRange range("VecEnv.reset");  // engine phases, for Nsight Systems
      return vec_->Reset(m, s);
    }));
    return BatchToDict(batch, num_rewards_, outputs_);
  }

  py::dict Step(const py::array& actions) {
    const VecEnvConfig& config = vec_->config();
    std::vector<int> a = IntegerRows(actions, "actions", config.num_envs, config.actions_per_step);
    BatchPtr batch = ValueOrThrow(WithoutGilLocked(mu_, [&] {
      kernels::NvtxRange range("VecEnv.step");  // engine phases, for Nsight Systems
      return vec_->Step(a);
    }));
    return BatchToDict(batch, num_rewards_, outputs_);
  }

  // VecEnv::TryActions by space names: per env, TryOutcomesToPython's tuple (None for an env
  // given no candidates).
  py::list TryActions(const std::vector<std::vector<std::vector<int>>>& candidates,
                      const std::string& reward_space, const std::string& observation_space) {
    const EnvSpec& spec = vec_->spec();
    const int reward = spec.RewardIndex(reward_space);
    if (reward < 0) RaiseStatus(InvalidArgument("unknown reward space " + reward_space));
    int observation = -1;
    if (!observation_space.empty()) {
      observation = spec.ObservationIndex(observation_space);
      if (observation < 0) {
        RaiseStatus(InvalidArgument("unknown observation space " + observation_space));
      }
    }
    auto tried = ValueOrThrow(
        WithoutGilLocked(mu_, [&] { return vec_->TryActions(candidates, reward, observation); }));
    py::list out;
    for (size_t i = 0; i < tried.size(); ++i) {
      out.append(candidates[i].empty() ? py::object(py::none())
                                       : TryOutcomesToPython(tried[i], observation >= 0));
    }
    return out;
  }

  void Send(const py::array& actions, const py::array& env_ids) {
    if (env_ids.ndim() != 1) RaiseStatus(InvalidArgument("env_ids must be one-dimensional"));
    std::vector<int> ids = IntegerRows(env_ids, "env_ids", env_ids.shape(0), 1);
    std::vector<int> a =
        IntegerRows(actions, "actions", env_ids.shape(0), vec_->config().actions_per_step);
    ThrowIfError(WithoutGilLocked(mu_, [&] { return vec_->Send(a, ids); }));
  }

  py::dict Recv(std::optional<double> timeout_seconds) {
    std::optional<std::chrono::milliseconds> timeout;
    if (timeout_seconds) {
      const double seconds = *timeout_seconds;
      if (!(seconds >= 0)) {  // NaN too
        RaiseStatus(InvalidArgument("recv(timeout=...) takes seconds >= 0 or None, got " +
                                    std::to_string(seconds)));
      }
      // Past a year (inf among them) is no limit: milliseconds of that would not fit.
      if (seconds < 365 * 86400.0) {
        timeout = std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
      }
    }
    BatchPtr batch = ValueOrThrow(WithoutGil([&] {
      kernels::NvtxRange range("VecEnv.recv");  // engine phases, for Nsight Systems
      return vec_->Recv(timeout);
    }));
    return BatchToDict(batch, num_rewards_, outputs_);
  }

  // One env's setting (Env::SetParameter), for tests and tools; not while steps are in flight.
  void SetEnvParameter(int env_id, const std::string& name, const std::string& value) {
    if (env_id < 0 || env_id >= num_envs()) {
      RaiseStatus(OutOfRange("env id " + std::to_string(env_id) + " is out of range"));
    }
    ThrowIfError(
        WithoutGilLocked(mu_, [&] { return vec_->env(env_id).SetParameter(name, value); }));
  }

  int num_envs() const { return vec_->config().num_envs; }
  // Ends the engine without the GIL: it waits for the steps in flight (up to their timeout),
  // and other Python threads go on meanwhile. The Python side drops this object after.
  void Close() {
    WithoutGilLocked(mu_, [&] { vec_.reset(); });
  }

  int batch_size() const { return vec_->config().batch_size; }
  int num_threads() const { return vec_->config().num_threads; }

 private:
  std::unique_ptr<VecEnv> vec_;
  // The synchronous calls and send() take turns (WithoutGilLocked); recv() does not, so that
  // one thread can wait in recv() while another sends.
  std::mutex mu_;
  size_t num_rewards_ = 0;
  Outputs outputs_;
};

}  // namespace

void BindVecEnv(py::module_& m) {
  py::class_<PyVecEnv>(m, "VecEnv")
      .def(py::init([](const std::string& env_id, std::vector<Benchmark> benchmarks,
                       bool random_benchmarks, int num_envs, int batch_size, int num_threads,
                       int max_episode_steps, int actions_per_step, const std::string& autoreset,
                       uint64_t seed, std::vector<std::string> observation_spaces,
                       std::vector<std::string> reward_spaces, const std::string& device,
                       const std::string& isolation,
                       std::vector<std::pair<std::string, std::string>> parameters) {
             if (device != "cpu" && device.rfind("cuda", 0) != 0) {
               RaiseStatus(InvalidArgument("device must be 'cpu' or 'cuda', got " + device));
             }
             if (autoreset != "next_step" && autoreset != "same_step") {
               RaiseStatus(InvalidArgument("autoreset must be 'next_step' or 'same_step'"));
             }
             VecEnvConfig config{.num_envs = num_envs,
                                 .batch_size = batch_size,
                                 .num_threads = num_threads,
                                 .max_episode_steps = max_episode_steps,
                                 .actions_per_step = actions_per_step,
                                 .autoreset = autoreset == "same_step" ? AutoReset::kSameStep
                                                                       : AutoReset::kNextStep,
                                 .seed = seed,
                                 .observation_spaces = std::move(observation_spaces),
                                 .reward_spaces = std::move(reward_spaces)};
             return std::make_unique<PyVecEnv>(
                 env_id, std::move(benchmarks), random_benchmarks, std::move(config),
                 device == "cpu" ? kernels::Device::kCpu : kernels::Device::kCuda, isolation,
                 std::move(parameters));
           }),
           py::arg("env_id"), py::arg("benchmarks"), py::arg("random_benchmarks"),
           py::arg("num_envs"), py::arg("batch_size"), py::arg("num_threads"),
           py::arg("max_episode_steps"), py::arg("actions_per_step"), py::arg("autoreset"),
           py::arg("seed"), py::arg("observation_spaces"), py::arg("reward_spaces"),
           py::arg("device") = "cpu", py::arg("isolation") = "none",
           py::arg("parameters") = std::vector<std::pair<std::string, std::string>>{})
      .def("reset", &PyVecEnv::Reset, py::arg("mask") = py::none(), py::arg("seeds") = py::none())
      .def("step", &PyVecEnv::Step, py::arg("actions"))
      .def("send", &PyVecEnv::Send, py::arg("actions"), py::arg("env_ids"))
      .def("try_actions", &PyVecEnv::TryActions, py::arg("candidates"), py::arg("reward_space"),
           py::arg("observation_space") = "")
      .def("recv", &PyVecEnv::Recv, py::arg("timeout") = py::none())
      .def("close", &PyVecEnv::Close)
      .def("_set_env_parameter", &PyVecEnv::SetEnvParameter, py::arg("env_id"), py::arg("name"),
           py::arg("value"))
      .def_property_readonly("num_envs", &PyVecEnv::num_envs)
      .def_property_readonly("batch_size", &PyVecEnv::batch_size)
      .def_property_readonly("num_threads", &PyVecEnv::num_threads);
}

}  // namespace compiler_gym::python
