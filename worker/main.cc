// compiler_gym-worker: the process that runs one environment for the process-isolated
// executor (engine/worker.h). Started by compiler_gym itself, never by hand.
#include <new>

#include "engine/worker.h"
#include "envs/all_envs.h"
#include "llvm/Support/ErrorHandling.h"

int main(int argc, char** argv) {
  // LLVM reports a failed allocation through its own handler (without exceptions it aborts,
  // which reads as a crash): tell a worker out of memory from an impossible request.
  llvm::install_bad_alloc_error_handler(
      [](void*, const char*, bool) { compiler_gym::WorkerAllocationFailed(); });
  return compiler_gym::WorkerMain(compiler_gym::AllEnvs(), argc, argv);
}
