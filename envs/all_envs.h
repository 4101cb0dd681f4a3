// The registry of every environment family built into this binary.
//
//   ASSIGN_OR_RETURN(std::unique_ptr<Env> env, AllEnvs().Make("llvm-v0"));
#pragma once

#include "engine/registry.h"

namespace compiler_gym {

const Registry& AllEnvs();

}  // namespace compiler_gym
