// CPU time of the calling thread: what a part of a step costs, unlike wall time, whatever else
// the machine is running (benchmarks set a candidate's parts beside its pass's on busy CI).
#pragma once

#include <time.h>

namespace compiler_gym {

class ThreadCpuTimer {
 public:
  ThreadCpuTimer() : start_(Now()) {}
  // Seconds since construction.
  double Seconds() const { return Now() - start_; }

  static double Now() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
  }

 private:
  double start_;
};

}  // namespace compiler_gym
