// AllEnvs(): the one list of built-in families, which the Python module, the libtorch API and
// the worker executable read their environments from.
// Built on first use; a family that fails to register (an id defined twice) aborts the process.
#include "envs/all_envs.h"

#include "envs/example/example_env.h"
#include "envs/gcc/gcc_env.h"
#include "envs/llvm/llvm_env.h"
#include "envs/loop_tool/loop_tool_env.h"

namespace compiler_gym {

const Registry& AllEnvs() {
  static const Registry* registry = [] {
    auto* r = new Registry();
    CG_CHECK(llvm_env::RegisterLlvmEnvs(*r).ok());
    CG_CHECK(gcc_env::RegisterGccEnvs(*r).ok());
    CG_CHECK(example_env::RegisterExampleEnvs(*r).ok());
    CG_CHECK(loop_tool_env::RegisterLoopToolEnvs(*r).ok());
    return r;
  }();
  return *registry;
}

}  // namespace compiler_gym
