// The process-isolated executor: environments whose compiler runs in a worker process.
//
// A remote env is an Env like any other (the vector engine steps it on its threads, Python
// holds it the same way), but each one drives a worker process of its own, started from an
// executable that links the environment families (worker/main.cc). What goes wrong inside the
// compiler stays there: a worker that crashes, runs past the per-step deadline or allocates past
// its memory limit is killed, the env's step ends its episode (done) with kCrash,
// kDeadlineExceeded or kResourceExhausted, and the next reset() starts a new worker. A worker
// whose family reports an error that ends the episode is replaced too, since the error may have
// left its process unreliable (a crash LLVM recovered from, say).
//
// Requests and their small replies travel over a Unix socket; observations come back through a
// memory region both processes map (a memfd), so a large observation is not streamed through
// the kernel. fork() forks the worker process itself (copy-on-write, no replay), as a sibling:
// every worker is a child of the process that holds the envs, which reaps it.
//
//   WorkerOptions options{.worker_path = "/path/to/compiler_gym-worker", .env_id = "llvm-v0"};
//   ASSIGN_OR_RETURN(std::unique_ptr<Env> env, MakeRemoteEnv(options, LlvmEnvSpec()));
//   RETURN_IF_ERROR(env->Reset(benchmark));          // as with an in-process env
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "engine/env.h"
#include "engine/registry.h"

namespace compiler_gym {

struct WorkerOptions {
  std::string worker_path;  // the worker executable
  std::string env_id;       // the registry id the worker makes
  // How long one request (a step, an observation, a reset) may take before its worker is
  // killed. Generous: some LLVM passes legitimately run for minutes on large programs.
  double step_timeout_seconds = 300;
  // The worker's address-space limit (soft RLIMIT_AS) in MiB; 0 = none. Programs it runs
  // (runtime measurement, sanitizer builds) have limits of their own.
  int64_t memory_limit_mb = 8192;
};

// Parameters a remote env keeps itself; the others go to its family in the worker.
inline constexpr char kStepTimeoutParameter[] = "worker.step_timeout_seconds";
inline constexpr char kMemoryLimitParameter[] = "worker.memory_limit_mb";

// An env of `spec`'s family in a worker process. The worker starts now, in the background; the
// first request waits for it. kNotFound when the executable does not exist.
StatusOr<std::unique_ptr<Env>> MakeRemoteEnv(const WorkerOptions& options, const EnvSpec& spec);

// The worker executable's main: serves one env of `registry` to the process that started it,
// over the descriptors MakeRemoteEnv passed. Returns the process's exit code.
int WorkerMain(const Registry& registry, int argc, char** argv);

// What a worker does when an allocation fails, called from its allocators' failure hooks: near
// its memory limit it exits with kWorkerOutOfMemoryExit (the env reports kResourceExhausted);
// otherwise the request was impossible (a size read from a corrupt file) and it aborts, a crash
// that the family may contain as it does in process.
inline constexpr int kWorkerOutOfMemoryExit = 86;
[[noreturn]] void WorkerAllocationFailed();

}  // namespace compiler_gym
