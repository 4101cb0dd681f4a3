// The worker executable of the engine's tests: serves the test families of test_envs.h.
#include "engine/test_envs.h"
#include "engine/worker.h"

int main(int argc, char** argv) {
  static compiler_gym::Registry registry = [] {
    compiler_gym::Registry r;
    (void)r.AddFamily({.name = "counter"});
    (void)r.Add({.id = "counter-v0", .family = "counter", .factory = [] {
                   return std::make_unique<compiler_gym::testing::CounterEnv>();
                 }});
    return r;
  }();
  return compiler_gym::WorkerMain(registry, argc, argv);
}
