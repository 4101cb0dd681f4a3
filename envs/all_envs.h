// The registry of every environment family built into this binary.
#pragma once

#include "engine/registry.h"

namespace compiler_gym {

const Registry& AllEnvs();

}  // namespace compiler_gym
