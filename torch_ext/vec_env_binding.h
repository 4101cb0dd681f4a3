// Python bindings of the vector engine (compiler_gym._C.VecEnv), and MakeEnv, how the Python
// module makes every env, in process or in a worker.
//
//   ASSIGN_OR_RETURN(std::unique_ptr<Env> env,
//                    MakeEnv("llvm-v0", "process", {{"runtime_observation_count", "5"}}));
#pragma once

#include <pybind11/pybind11.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/env.h"

namespace compiler_gym::python {

// Makes an env of a registered id: in this process (isolation "none") or in a worker process
// of its own ("process", engine/worker.h), then applies `parameters` in order.
StatusOr<std::unique_ptr<Env>> MakeEnv(
    const std::string& id, const std::string& isolation,
    const std::vector<std::pair<std::string, std::string>>& parameters = {});

void BindVecEnv(pybind11::module_& m);

// TryActions outcomes as (rewards float64[n] with NaN where a candidate failed, error types,
// error details, observations or None): what env.try_actions() and the vector engine's return.
pybind11::tuple TryOutcomesToPython(std::vector<TryOutcome>& tried, bool with_observations);

}  // namespace compiler_gym::python
