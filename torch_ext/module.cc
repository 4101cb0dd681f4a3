// compiler_gym._C: the Python face of the C++ engine. Thin: it converts values and maps errors;
// all behaviour lives in the engine and the environments. Every call that may block (compiling,
// running passes, computing observations) releases the GIL.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <limits>

#include "engine/env.h"
#include "engine/sandbox.h"
#include "engine/worker.h"
#include "envs/all_envs.h"
#include "observations/vocabulary.h"
#include "torch_ext/actions.h"
#include "torch_ext/dlpack_export.h"
#include "torch_ext/errors.h"
#include "torch_ext/numpy_util.h"
#include "torch_ext/vec_env_binding.h"

namespace py = pybind11;

namespace compiler_gym::python {
namespace {

// Vectors move into the arrays that return them, and graph arrays are read-only views of the
// (shared, possibly cached) graph: an observation is not copied on its way to Python.
struct ObservationToPython {
  py::object operator()(std::monostate) const { return py::none(); }
  py::object operator()(int64_t v) const { return py::int_(v); }
  py::object operator()(double v) const { return py::float_(v); }
  py::object operator()(bool v) const { return py::bool_(v); }
  py::object operator()(const Text& v) const { return py::str(v.data); }
  py::object operator()(const Json& v) const { return py::str(v.data); }
  py::object operator()(const Bytes& v) const { return py::bytes(v.data); }
  template <typename T>
  py::object operator()(std::vector<T>& v) const {
    const auto size = static_cast<py::ssize_t>(v.size());
    return Own(std::move(v), {size});
  }
  py::object operator()(const GraphPtr& g) const {
    py::dict d;
    auto array = [&g](const std::vector<int64_t>& v) { return SharedView(v, g); };
    d["node_type"] = array(g->node_type);
    d["node_text_id"] = array(g->node_text_id);
    d["node_function"] = array(g->node_function);
    d["node_block"] = array(g->node_block);
    d["node_text"] = g->node_text;
    d["node_full_text"] = g->node_full_text;
    d["edge_source"] = array(g->edge_source);
    d["edge_target"] = array(g->edge_target);
    d["edge_flow"] = array(g->edge_flow);
    d["edge_position"] = array(g->edge_position);
    return d;
  }
};

py::object ToPython(Observation value) { return std::visit(ObservationToPython{}, value); }

// A spec field's Python value: enums by their names, shapes as tuples.
py::object FieldToPython(const std::string& v) { return py::str(v); }
py::object FieldToPython(double v) { return py::float_(v); }
py::object FieldToPython(bool v) { return py::bool_(v); }
py::object FieldToPython(SpaceKind v) { return py::str(SpaceKindName(v)); }
py::object FieldToPython(DType v) { return py::str(DTypeName(v)); }
py::object FieldToPython(RewardKind v) { return py::str(RewardKindName(v)); }
py::object FieldToPython(const std::vector<int64_t>& v) { return py::tuple(py::cast(v)); }
py::object FieldToPython(const std::optional<double>& v) {
  return v ? py::object(py::float_(*v)) : py::object(py::none());
}

// Every field of a spec row, from the struct's one field list (engine/space.h).
#define COMPILER_GYM_FIELD_TO_DICT(type, name, value) d[#name] = FieldToPython(row.name);

py::dict SpaceToDict(const SpaceSpec& row) {
  py::dict d;
  COMPILER_GYM_SPACE_SPEC_FIELDS(COMPILER_GYM_FIELD_TO_DICT)
  return d;
}

py::dict RewardToDict(const RewardSpec& row) {
  py::dict d;
  COMPILER_GYM_REWARD_SPEC_FIELDS(COMPILER_GYM_FIELD_TO_DICT)
  return d;
}

#undef COMPILER_GYM_FIELD_TO_DICT

py::dict SpecToDict(const EnvSpec& spec) {
  py::dict d;
  d["family"] = spec.family;
  d["compiler_version"] = spec.compiler_version;
  py::list actions, observations, rewards;
  for (const ActionSpaceSpec& a : spec.action_spaces) {
    py::dict ad;
    ad["name"] = a.name;
    ad["action_names"] = a.action_names;
    ad["doc"] = a.doc;
    ad["opt_in"] = a.opt_in;
    actions.append(ad);
  }
  py::list defaults;  // what each observation reads when an error ended the episode
  for (const SpaceSpec& s : spec.observation_spaces) {
    observations.append(SpaceToDict(s));
    defaults.append(ToPython(DefaultObservation(s)));
  }
  for (const RewardSpec& r : spec.reward_spaces) rewards.append(RewardToDict(r));
  d["action_spaces"] = actions;
  d["observation_spaces"] = observations;
  d["observation_defaults"] = defaults;
  d["reward_spaces"] = rewards;
  return d;
}

}  // namespace

py::tuple TryOutcomesToPython(std::vector<TryOutcome>& tried, bool with_observations) {
  const auto n = static_cast<py::ssize_t>(tried.size());
  py::array_t<double> rewards(n);
  py::list types, details, observations;
  for (py::ssize_t i = 0; i < n; ++i) {
    TryOutcome& t = tried[i];
    rewards.mutable_at(i) = t.error.ok() ? t.reward : std::numeric_limits<double>::quiet_NaN();
    types.append(t.error.ok() ? "" : std::string(StatusCodeName(t.error.code())));
    details.append(LenientStr(t.error.message()));
    observations.append(with_observations && t.error.ok() ? ToPython(std::move(t.observation))
                                                          : py::none());
  }
  return py::make_tuple(rewards, types, details, observations);
}

namespace {

// Python owns Envs through this holder so that fork() can hand back a new one.
class PyEnv {
 public:
  explicit PyEnv(std::unique_ptr<Env> env) : env_(std::move(env)) {}

  void Reset(const Benchmark& benchmark) {
    ThrowIfError(WithoutGilLocked(*mu_, [&] { return env_->Reset(benchmark); }));
  }

  // Env::StepAndObserve, the one step path: returns (observations, rewards, done,
  // action_had_no_effect, error_type, error_details, compute_seconds, verify_seconds). The
  // actions are applied one at a time, with a check for signals between them: Ctrl-C stops a
  // long multistep after the action in progress and raises KeyboardInterrupt, the env's
  // actions() are exactly the ones applied and its episode rewards count them.
  py::tuple Step(py::handle values, const std::vector<int>& observations,
                 const std::vector<int>& rewards) {
    const std::vector<int> actions = ActionsFromPython(values);
    bool signalled = false;
    const Env::StepRequest request{
        .observations = observations, .rewards = rewards, .stop = [&signalled] {
          py::gil_scoped_acquire gil;
          // On a signal Python's handler has raised (KeyboardInterrupt): raised again below.
          signalled = PyErr_CheckSignals() != 0;
          return signalled;
        }};
    StatusOr<Transition> stepped =
        WithoutGilLocked(*mu_, [&] { return env_->StepAndObserve(actions, request); });
    if (signalled) throw py::error_already_set();
    Transition t = ValueOrThrow(std::move(stepped));
    py::list observation_values;
    for (Observation& value : t.observations) observation_values.append(ToPython(std::move(value)));
    return py::make_tuple(observation_values, py::cast(t.rewards), t.done, t.action_had_no_effect,
                          t.done ? std::string(StatusCodeName(t.error.code())) : "",
                          LenientStr(t.error.message()), t.compute_seconds, t.verify_seconds);
  }

  double EpisodeReward(int index) const {
    return WithoutGilLocked(*mu_, [&] { return env_->EpisodeReward(index); });
  }

  void RestartEpisodeReward(int index) {
    WithoutGilLocked(*mu_, [&] { env_->RestartEpisodeReward(index); });
  }

  py::object Observe(int index) {
    return ToPython(ValueOrThrow(WithoutGilLocked(*mu_, [&] { return env_->Observe(index); })));
  }

  // Env::TryActions: ((rewards, error types, error details, observations), seconds), one entry
  // per candidate; a failed candidate has reward NaN, its error type, and observation None.
  // `seconds` is TryStats by name: where the time went, for benchmarks.
  py::tuple TryActions(py::handle values, int reward_index, int observation_index) {
    // A candidate is an action or a sequence of actions.
    std::vector<std::vector<int>> candidates;
    for (py::handle value : py::iter(values)) {
      const bool sequence =
          (py::isinstance<py::sequence>(value) && !py::isinstance<py::str>(value) &&
           !py::isinstance<py::bytes>(value)) ||
          (py::hasattr(value, "ndim") && value.attr("ndim").cast<int>() >= 1);  // arrays, tensors
      candidates.push_back(sequence ? ActionsFromPython(value)
                                    : std::vector<int>{ActionFromPython(value)});
    }
    TryStats stats;
    std::vector<TryOutcome> tried = ValueOrThrow(WithoutGilLocked(*mu_, [&] {
      return env_->TryActions(candidates, reward_index, observation_index, &stats);
    }));
    py::dict time;
    time["candidates"] = stats.candidates;
    time["setup"] = stats.setup_seconds;
    time["pass"] = stats.pass_seconds;
    time["fingerprint"] = stats.fingerprint_seconds;
    time["verify"] = stats.verify_seconds;
    time["step_other"] = stats.step_other_seconds;
    time["reward"] = stats.reward_seconds;
    time["restore"] = stats.restore_seconds;
    return py::make_tuple(TryOutcomesToPython(tried, observation_index >= 0), time);
  }

  double Reward(int index) {
    return ValueOrThrow(WithoutGilLocked(*mu_, [&] { return env_->Reward(index); }));
  }

  void SetParameter(const std::string& name, const std::string& value) {
    ThrowIfError(WithoutGilLocked(*mu_, [&] { return env_->SetParameter(name, value); }));
  }

  std::string GetParameter(const std::string& name) const {
    return ValueOrThrow(WithoutGilLocked(*mu_, [&] { return env_->GetParameter(name); }));
  }

  // A family's own operation (Env::Call), e.g. LLVM's "check_semantics".
  std::string Call(const std::string& method, const std::string& argument) {
    return ValueOrThrow(WithoutGilLocked(*mu_, [&] { return env_->Call(method, argument); }));
  }

  PyEnv Fork() {
    return PyEnv(ValueOrThrow(WithoutGilLocked(*mu_, [&] { return env_->Fork(); })));
  }

  void SetActionSpace(int index) {
    ThrowIfError(WithoutGilLocked(*mu_, [&] { return env_->SetActionSpace(index); }));
  }
  int action_space() const {
    return WithoutGilLocked(*mu_, [&] { return env_->action_space(); });
  }
  bool in_episode() const {
    return WithoutGilLocked(*mu_, [&] { return env_->in_episode(); });
  }
  bool episode_over() const {
    return WithoutGilLocked(*mu_, [&] { return env_->episode_over(); });
  }
  std::vector<int> actions() const {
    return WithoutGilLocked(*mu_, [&] { return env_->actions(); });
  }
  const EnvSpec& spec() const { return env_->Spec(); }

 private:
  std::unique_ptr<Env> env_;
  std::unique_ptr<std::mutex> mu_ = std::make_unique<std::mutex>();  // see WithoutGilLocked
};

}  // namespace
}  // namespace compiler_gym::python

PYBIND11_MODULE(_C, m) {
  using namespace compiler_gym;
  using namespace compiler_gym::python;
  m.doc() = "The C++ engine of compiler_gym: environments, spaces and benchmarks.";

  py::class_<Benchmark>(m, "Benchmark")
      .def(py::init<>())
      .def_readwrite("uri", &Benchmark::uri)
      .def_readwrite("files", &Benchmark::files)
      .def_property(
          "data", [](const Benchmark& b) { return py::bytes(b.data); },
          [](Benchmark& b, py::bytes data) { b.data = std::string(data); })
      .def_readwrite("compile_args", &Benchmark::compile_args)
      .def_readwrite("build_timeout_seconds", &Benchmark::build_timeout_seconds)
      .def_readwrite("link_args", &Benchmark::link_args)
      .def_readwrite("run_args", &Benchmark::run_args)
      .def_readwrite("expected_output", &Benchmark::expected_output)
      .def_readwrite("known_costs", &Benchmark::known_costs)
      .def_readwrite("buildable", &Benchmark::buildable)
      .def_readwrite("runnable", &Benchmark::runnable);

  py::class_<PyEnv>(m, "Env")
      .def("reset", &PyEnv::Reset, py::arg("benchmark"))
      .def("step", &PyEnv::Step, py::arg("actions"), py::arg("observations"), py::arg("rewards"))
      .def("episode_reward", &PyEnv::EpisodeReward, py::arg("reward_index"))
      .def("restart_episode_reward", &PyEnv::RestartEpisodeReward, py::arg("reward_index"))
      .def("observe", &PyEnv::Observe, py::arg("index"))
      .def("reward", &PyEnv::Reward, py::arg("index"))
      .def("try_actions", &PyEnv::TryActions, py::arg("candidates"), py::arg("reward_index"),
           py::arg("observation_index") = -1)
      .def("fork", &PyEnv::Fork)
      .def("set_parameter", &PyEnv::SetParameter, py::arg("name"), py::arg("value"))
      .def("get_parameter", &PyEnv::GetParameter, py::arg("name"))
      .def("call", &PyEnv::Call, py::arg("method"), py::arg("argument") = "")
      .def_property("action_space", &PyEnv::action_space, &PyEnv::SetActionSpace)
      .def_property_readonly("in_episode", &PyEnv::in_episode)
      .def_property_readonly("episode_over", &PyEnv::episode_over)
      .def_property_readonly("actions", &PyEnv::actions)
      .def_property_readonly("spec", [](const PyEnv& e) { return SpecToDict(e.spec()); });

  BindDeviceArray(m);
  BindVecEnv(m);

  m.def(
      "make_env",
      [](const std::string& id, const std::string& isolation,
         const std::vector<std::pair<std::string, std::string>>& parameters) {
        return PyEnv(ValueOrThrow(WithoutGil([&] { return MakeEnv(id, isolation, parameters); })));
      },
      py::arg("id"), py::arg("isolation") = "none",
      py::arg("parameters") = std::vector<std::pair<std::string, std::string>>{});

  // The status-code table, walked by the tests: (code name, exception name) for every code,
  // and a hook that raises the exception of a code as any engine error would.
  m.def("status_codes", [] {
    py::list out;
#define CG_STATUS_ROW(code, name)          \
  if (StatusCode::code != StatusCode::kOk) \
    out.append(py::make_tuple(name, ExceptionNameFor(StatusCode::code)));
    COMPILER_GYM_STATUS_CODES(CG_STATUS_ROW)
#undef CG_STATUS_ROW
    return out;
  });
  m.def(
      "raise_status_for_testing",
      [](const std::string& code, const std::string& message) {
#define CG_STATUS_RAISE(c, name) \
  if (code == name) ThrowIfError(Status(StatusCode::c, message));
        COMPILER_GYM_STATUS_CODES(CG_STATUS_RAISE)
#undef CG_STATUS_RAISE
        throw py::value_error("unknown status code " + code);
      },
      py::arg("code"), py::arg("message"));

  m.def("env_ids", [] {
    py::list out;
    for (const EnvEntry& e : AllEnvs().entries()) {
      py::dict d;
      d["id"] = e.id;
      d["family"] = e.family;
      d["default_observation"] = e.default_observation;
      d["default_reward"] = e.default_reward;
      d["default_benchmark"] = e.default_benchmark;
      d["doc"] = e.doc;
      out.append(d);
    }
    return out;
  });

  m.def(
      "env_spec",
      [](const std::string& id) {
        const EnvEntry* entry = AllEnvs().Find(id);
        if (entry == nullptr) RaiseStatus(NotFound("unknown environment id " + id));
        auto env = entry->factory();
        return SpecToDict(env->Spec());
      },
      py::arg("id"));

  m.def("set_data_directory", &observations::SetDataDirectory, py::arg("path"),
        "Where the engine reads package data (vocabularies, embeddings).");
  m.def("data_directory", &observations::DataDirectory);
  m.def("clear_vocabulary_cache", &observations::ClearVocabularyCache);
  m.def("families", [] {
    py::list out;
    for (const FamilyEntry& f : AllEnvs().families()) {
      py::dict d;
      d["name"] = f.name;
      d["doc"] = f.doc;
      d["can_probe"] = static_cast<bool>(f.probe);
      py::list gathered;
      for (const GatheredSpace& g : f.gathered_spaces) gathered.append(g.space);
      d["gathered_spaces"] = gathered;
      out.append(d);
    }
    return out;
  });
  m.def(
      "family_call",
      [](const std::string& family, const std::string& method, const std::string& argument) {
        return LenientStr(ValueOrThrow(
            WithoutGil([&] { return AllEnvs().CallFamily(family, method, argument); })));
      },
      py::arg("family"), py::arg("method"), py::arg("argument") = "",
      "A family's operation that needs no env (its tables, caches, tools), text in and out; "
      "the family's Python module wraps them.");
  m.def(
      "probe_benchmark",
      [](const std::string& family, const Benchmark& benchmark, double timeout_seconds) {
        const FamilyEntry* entry = AllEnvs().FindFamily(family);
        if (entry == nullptr) RaiseStatus(InvalidArgument("unknown environment family " + family));
        if (!entry->probe) RaiseStatus(Unimplemented("family " + family + " cannot probe"));
        auto probe = WithoutGil([&] { return entry->probe(benchmark, timeout_seconds); });
        py::dict out;
        out["ok"] = probe.ok();
        out["error_type"] = std::string(probe.ok() ? "" : StatusCodeName(probe.status().code()));
        out["error"] = LenientStr(probe.ok() ? std::string() : probe.status().message());
        out["stdout"] = py::bytes(probe.ok() ? probe->stdout_text : std::string());
        out["seconds"] = probe.ok() ? probe->seconds : 0.0;
        return out;
      },
      py::arg("family"), py::arg("benchmark"), py::arg("timeout_seconds") = 10.0,
      "Loads, builds and runs a benchmark as the family's envs would (only loads one that is "
      "not runnable), caching nothing; returns whether it worked and what it printed.");

  // The engine's sandbox, so that Python code that runs programs (dataset generators and
  // checks) gets the same limits and clean-up as the environments.
  m.def(
      "run_sandboxed",
      [](const std::vector<std::string>& argv, double timeout_seconds, int64_t memory_bytes,
         const std::string& workdir, const std::vector<std::string>& extra_env, bool isolated) {
        const SandboxLimits limits{
            .timeout_seconds = timeout_seconds, .memory_bytes = memory_bytes, .isolated = isolated};
        const ProcessResult r = ValueOrThrow(
            WithoutGil([&] { return RunSandboxed(argv, limits, workdir, extra_env); }));
        py::dict out;
        out["exit_code"] = r.exit_code;
        out["signal"] = r.signal;
        out["timed_out"] = r.timed_out;
        out["ok"] = r.ok();
        out["description"] = r.Describe(limits);
        out["stdout"] = py::bytes(r.stdout_text);
        out["stderr"] = py::bytes(r.stderr_text);
        out["wall_seconds"] = r.wall_seconds;
        out["cpu_seconds"] = r.cpu_seconds;
        return out;
      },
      py::arg("argv"), py::arg("timeout_seconds") = 60.0,
      py::arg("memory_bytes") = kDefaultChildMemoryBytes, py::arg("workdir") = "",
      py::arg("extra_env") = std::vector<std::string>{}, py::arg("isolated") = false,
      "Runs argv in a sandbox (fresh temporary workdir unless given, wall-clock and "
      "address-space limits: 8 GiB unless memory_bytes says otherwise, 0 for the hard limit; "
      "stdin from /dev/null; with isolated, no network and no writes outside the workdir; "
      "nothing it starts outlives it); returns how it ended and its output.");
  m.def(
      "make_temp_dir", [](const std::string& prefix) { return ValueOrThrow(MakeTempDir(prefix)); },
      py::arg("prefix"),
      "A new temporary directory named after the prefix and this process, so that one left "
      "behind by a process that died is removed by the next (the caller removes it).");
  // The parameter that bounds a step in a worker process (isolation="process").
  m.attr("STEP_TIMEOUT_PARAMETER") = kStepTimeoutParameter;
  m.def("isolation_status", &IsolationStatus,
        "What isolation sandboxed programs get here: 'network, file system', or what is "
        "missing.");
  // Families join their background threads while the interpreter is still whole, before C++
  // static destructors run.
  py::module_::import("atexit").attr("register")(py::cpp_function([] {
    for (const FamilyEntry& family : AllEnvs().families()) {
      if (family.shutdown) family.shutdown();
    }
  }));
}
