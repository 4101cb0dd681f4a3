#include "torch_ext/vec_env_binding.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstring>

#include "engine/vec_env.h"
#include "envs/all_envs.h"
#include "torch_ext/errors.h"

namespace py = pybind11;

namespace compiler_gym::python {
namespace {

// Wraps a vector in a NumPy array that owns it (no copy of the data).
template <typename T>
py::array_t<T> Own(std::vector<T> values, std::vector<py::ssize_t> shape) {
  auto* heap = new std::vector<T>(std::move(values));
  py::capsule owner(heap, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return py::array_t<T>(shape, heap->data(), owner);
}

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
        py::array array(NumpyDtype(slab.spec().dtype), {static_cast<py::ssize_t>(n)});
        std::memcpy(array.mutable_data(), bytes.data(), bytes.size());
        out.append(array);
      }
    }
  }
  return out;
}

py::list Observations(const std::shared_ptr<SlabSet>& slabs) {
  py::list out;
  if (!slabs) return out;
  for (size_t k = 0; k < slabs->size(); ++k) {
    out.append(slabs->slab(k).fixed() ? SlabArray(slabs, k) : SlabList(slabs->slab(k)));
  }
  return out;
}

py::dict BatchToDict(const BatchPtr& batch, size_t num_rewards) {
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
    error_details.append(e.message());
  }
  d["error_type"] = error_types;
  d["error_details"] = error_details;
  d["observations"] = Observations(batch->slabs);
  if (batch->final_slabs) d["final_observations"] = Observations(batch->final_slabs);
  return d;
}

class PyVecEnv {
 public:
  PyVecEnv(const std::string& env_id, std::vector<Benchmark> benchmarks, bool random_benchmarks,
           VecEnvConfig config) {
    if (benchmarks.empty()) RaiseStatus(InvalidArgument("make_vec() needs at least one benchmark"));
    const EnvEntry* entry = AllEnvs().Find(env_id);
    if (entry == nullptr) RaiseStatus(NotFound("unknown environment id " + env_id));
    auto factory = [entry]() -> StatusOr<std::unique_ptr<Env>> { return entry->factory(); };
    // Benchmarks are chosen in C++ on the workers: no Python call, no GIL, per-env RNG.
    auto sampler = [benchmarks, random_benchmarks](int env_id, int64_t,
                                                   std::mt19937_64& rng) -> Benchmark {
      if (random_benchmarks) return benchmarks[rng() % benchmarks.size()];
      return benchmarks[env_id % benchmarks.size()];
    };
    num_rewards_ = config.reward_spaces.size();
    vec_ = ValueOrThrow(VecEnv::Create(factory, sampler, std::move(config)));
  }

  py::dict Reset(std::optional<std::vector<uint8_t>> mask) {
    std::vector<uint8_t> m = mask.value_or(std::vector<uint8_t>{});
    BatchPtr batch = ValueOrThrow(WithoutGil([&] { return vec_->Reset(m); }));
    return BatchToDict(batch, num_rewards_);
  }

  py::dict Step(py::array_t<int, py::array::c_style | py::array::forcecast> actions) {
    std::vector<int> a(actions.data(), actions.data() + actions.size());
    BatchPtr batch = ValueOrThrow(WithoutGil([&] { return vec_->Step(a); }));
    return BatchToDict(batch, num_rewards_);
  }

  void Send(py::array_t<int, py::array::c_style | py::array::forcecast> actions,
            py::array_t<int, py::array::c_style | py::array::forcecast> env_ids) {
    std::vector<int> a(actions.data(), actions.data() + actions.size());
    std::vector<int> ids(env_ids.data(), env_ids.data() + env_ids.size());
    ThrowIfError(WithoutGil([&] { return vec_->Send(a, ids); }));
  }

  py::dict Recv(std::optional<double> timeout_seconds) {
    std::optional<std::chrono::milliseconds> timeout;
    if (timeout_seconds) {
      timeout = std::chrono::milliseconds(static_cast<int64_t>(*timeout_seconds * 1000));
    }
    BatchPtr batch = ValueOrThrow(WithoutGil([&] { return vec_->Recv(timeout); }));
    return BatchToDict(batch, num_rewards_);
  }

  int num_envs() const { return vec_->config().num_envs; }
  int batch_size() const { return vec_->config().batch_size; }
  int num_threads() const { return vec_->config().num_threads; }

 private:
  std::unique_ptr<VecEnv> vec_;
  size_t num_rewards_ = 0;
};

}  // namespace

void BindVecEnv(py::module_& m) {
  py::class_<PyVecEnv>(m, "VecEnv")
      .def(py::init([](const std::string& env_id, std::vector<Benchmark> benchmarks,
                       bool random_benchmarks, int num_envs, int batch_size, int num_threads,
                       int max_episode_steps, int actions_per_step, const std::string& autoreset,
                       uint64_t seed, std::vector<std::string> observation_spaces,
                       std::vector<std::string> reward_spaces) {
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
             return std::make_unique<PyVecEnv>(env_id, std::move(benchmarks), random_benchmarks,
                                               std::move(config));
           }),
           py::arg("env_id"), py::arg("benchmarks"), py::arg("random_benchmarks"),
           py::arg("num_envs"), py::arg("batch_size"), py::arg("num_threads"),
           py::arg("max_episode_steps"), py::arg("actions_per_step"), py::arg("autoreset"),
           py::arg("seed"), py::arg("observation_spaces"), py::arg("reward_spaces"))
      .def("reset", &PyVecEnv::Reset, py::arg("mask") = py::none())
      .def("step", &PyVecEnv::Step, py::arg("actions"))
      .def("send", &PyVecEnv::Send, py::arg("actions"), py::arg("env_ids"))
      .def("recv", &PyVecEnv::Recv, py::arg("timeout") = py::none())
      .def_property_readonly("num_envs", &PyVecEnv::num_envs)
      .def_property_readonly("batch_size", &PyVecEnv::batch_size)
      .def_property_readonly("num_threads", &PyVecEnv::num_threads);
}

}  // namespace compiler_gym::python
