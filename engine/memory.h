// How much memory the machine can still give, and a check that many more of something fit,
// projected from a sample: how make_vec refuses, with a clear error, a number of envs that
// would exhaust memory, before it allocates them (it used to grow until the process died).
//
//   MemorySample sample;  // before allocating the first `k` items
//   // ... allocate k items ...
//   RETURN_IF_ERROR(sample.CheckFits(k, remaining, "environments"));
#pragma once

#include <cstdint>
#include <string_view>

#include "engine/status.h"

namespace compiler_gym {

// MemAvailable of /proc/meminfo, capped by what a cgroup v2 memory limit leaves this process's
// group; -1 where neither can be read.
int64_t AvailableMemoryBytes();

// This process's resident set in bytes (VmRSS), or -1.
int64_t ResidentBytes();

// ResourceExhausted when `remaining` more items at `bytes_per_item` each would not fit in
// `available` bytes; the message names the count, the per-item cost and the headroom.
Status CheckProjectedMemory(int64_t bytes_per_item, int64_t remaining, int64_t available,
                            std::string_view what);

// The memory taken between its construction and CheckFits: by this process (its resident
// set) or by the whole machine (its available memory, which also sees worker processes),
// whichever grew more.
class MemorySample {
 public:
  MemorySample();
  // Checks that `remaining` more items, each costing what the `done` items allocated since
  // construction cost on average, fit in what is available now.
  Status CheckFits(int64_t done, int64_t remaining, std::string_view what) const;

 private:
  int64_t resident_;
  int64_t available_;
};

}  // namespace compiler_gym
