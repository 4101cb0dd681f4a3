// TorchVecEnv over a VecEnv: observation slabs wrapped as tensors whose deleter holds the slab
// set, small per-row vectors copied, and inputs checked before they reach the engine.
#include "torch_ext/torch_vec_env.h"

#include "envs/all_envs.h"

namespace compiler_gym::torch_api {

namespace {

torch::ScalarType TorchType(DType dtype) {
  switch (dtype) {
    case DType::kInt64:
      return torch::kInt64;
    case DType::kFloat32:
      return torch::kFloat32;
    case DType::kFloat64:
      return torch::kFloat64;
    case DType::kBool:
      return torch::kBool;
    default:
      return torch::kUInt8;
  }
}

// A copy of a small per-row vector as a tensor of `type`.
template <typename T>
torch::Tensor Copy(const std::vector<T>& values, std::vector<int64_t> shape,
                   torch::ScalarType type) {
  return torch::from_blob(const_cast<T*>(values.data()), shape, c10::CppTypeToScalarType<T>::value)
      .to(type, /*non_blocking=*/false, /*copy=*/true);
}

TorchBatch ToTorch(const BatchPtr& batch, size_t num_rewards) {
  TorchBatch out;
  const int64_t rows = batch->rows();
  out.env_ids = Copy(batch->env_ids, {rows}, torch::kInt32);
  out.rewards = Copy(batch->rewards, {rows, static_cast<int64_t>(num_rewards)}, torch::kFloat64);
  out.terminated = Copy(batch->terminated, {rows}, torch::kBool);
  out.truncated = Copy(batch->truncated, {rows}, torch::kBool);
  for (const Status& error : batch->errors)
    out.errors.push_back(error.ok() ? "" : error.ToString());
  const std::shared_ptr<SlabSet>& slabs = batch->slabs;
  for (size_t k = 0; slabs && k < slabs->size(); ++k) {
    Slab& slab = slabs->slab(k);
    // The tensor's deleter holds the slab set: the engine will not write into it meanwhile.
    auto* keep = new std::shared_ptr<SlabSet>(slabs);
    out.observations.push_back(torch::from_blob(
        slab.data(), slab.shape(), [keep](void*) { delete keep; },
        torch::TensorOptions().dtype(TorchType(slab.spec().dtype))));
  }
  return out;
}

}  // namespace

TorchVecEnv::TorchVecEnv(std::unique_ptr<VecEnv> vec) : vec_(std::move(vec)) {}

StatusOr<std::unique_ptr<TorchVecEnv>> TorchVecEnv::Create(const std::string& env_id,
                                                           std::vector<Benchmark> benchmarks,
                                                           VecEnvConfig config) {
  if (benchmarks.empty()) return InvalidArgument("TorchVecEnv needs at least one benchmark");
  const EnvEntry* entry = AllEnvs().Find(env_id);
  if (entry == nullptr) return NotFound("unknown environment id " + env_id);
  const std::unique_ptr<Env> probe = entry->factory();
  for (const std::string& name : config.observation_spaces) {
    const int index = probe->Spec().ObservationIndex(name);
    if (index < 0) return InvalidArgument("unknown observation space " + name);
    if (!Slab(probe->Spec().observation_spaces[index], 0).fixed()) {
      return InvalidArgument("observation space " + name +
                             " has no fixed size; tensors need one (use the Python API)");
    }
  }
  auto factory = [entry]() -> StatusOr<std::unique_ptr<Env>> { return entry->factory(); };
  auto sampler = [benchmarks](int id, int64_t, std::mt19937_64&) {
    return benchmarks[id % benchmarks.size()];
  };
  ASSIGN_OR_RETURN(std::unique_ptr<VecEnv> vec,
                   VecEnv::Create(factory, sampler, std::move(config)));
  return std::unique_ptr<TorchVecEnv>(new TorchVecEnv(std::move(vec)));
}

StatusOr<TorchBatch> TorchVecEnv::Reset(const torch::Tensor& mask) {
  std::vector<uint8_t> m;
  if (mask.defined()) {
    if (mask.numel() != num_envs()) return InvalidArgument("reset mask must have num_envs values");
    const torch::Tensor bytes = mask.to(torch::kCPU).to(torch::kUInt8).contiguous();
    m.assign(bytes.data_ptr<uint8_t>(), bytes.data_ptr<uint8_t>() + bytes.numel());
  }
  ASSIGN_OR_RETURN(BatchPtr batch, vec_->Reset(m));
  return ToTorch(batch, vec_->config().reward_spaces.size());
}

StatusOr<TorchBatch> TorchVecEnv::Step(const torch::Tensor& actions) {
  if (!actions.defined()) return InvalidArgument("no actions");
  if (actions.is_floating_point()) return InvalidArgument("actions must be integers");
  const torch::Tensor ints = actions.to(torch::kCPU).to(torch::kInt32).contiguous();
  std::vector<int> a(ints.data_ptr<int32_t>(), ints.data_ptr<int32_t>() + ints.numel());
  ASSIGN_OR_RETURN(BatchPtr batch, vec_->Step(a));
  return ToTorch(batch, vec_->config().reward_spaces.size());
}

int TorchVecEnv::num_envs() const { return vec_->config().num_envs; }

int TorchVecEnv::num_actions() const {
  const EnvSpec& spec = vec_->spec();
  return static_cast<int>(spec.action_spaces[0].action_names.size());
}

const VecEnvConfig& TorchVecEnv::config() const { return vec_->config(); }

}  // namespace compiler_gym::torch_api
