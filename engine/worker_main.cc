// The worker's side of the process-isolated executor (engine/worker.h): the worker process
// serves one env over the worker protocol, with a watchdog that ends it when its peer goes.
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <optional>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "engine/worker.h"
#include "engine/worker_protocol.h"

namespace compiler_gym {
namespace worker {
namespace {

constexpr size_t kWatchdogStackBytes = 64 << 10;

// Ends the worker soon after the process that holds its env goes away, even in the middle of
// a step that would never finish: the peer's end of the socket closing is the sign.
void* Watchdog(void* arg) {
  const int sock = static_cast<int>(reinterpret_cast<intptr_t>(arg));
  while (true) {
    pollfd p{sock, POLLRDHUP, 0};
    if (::poll(&p, 1, -1) < 0 && errno == EINTR) continue;
    if (p.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)) break;
  }
  // The main loop exits by itself when it is idle; this is for a busy one.
  ::sleep(5);
  ::_exit(0);
}

void StartWatchdog(int sock) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, kWatchdogStackBytes);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_t thread;
  // Without a watchdog the worker still ends when its holder asks or its channel closes.
  ::pthread_create(&thread, &attr, Watchdog, reinterpret_cast<void*>(static_cast<intptr_t>(sock)));
  pthread_attr_destroy(&attr);
}

// Threads of this process, the main one and the watchdog among them.
int ThreadCount() {
  int count = 0;
  if (DIR* dir = ::opendir("/proc/self/task")) {
    while (const dirent* entry = ::readdir(dir)) count += entry->d_name[0] != '.';
    ::closedir(dir);
  }
  return count;
}

// A worker's state: its env and the channel to its holder.
struct Serving {
  std::unique_ptr<Env> env;
  int sock = kWorkerSocketFd;
  SharedRegion shared;
};

// Forks the worker process as a sibling (its parent is the env holder, who reaps it). The
// child serves the new descriptors; the parent, the old ones. Returns the child's pid (0 in
// the child).
StatusOr<pid_t> ForkWorker(Serving& serving, int new_sock, int new_shared) {
  // A clone has only the calling thread: safe while the process has no other thread than the
  // watchdog, which holds no locks while it waits. Threads of the env's (a thread pool, a GPU
  // driver's) would be missing in the clone, or hold its locks: kFailedPrecondition, and the
  // holder forks by replay instead.
  if (ThreadCount() > 2) {
    ::close(new_sock);
    ::close(new_shared);
    return FailedPrecondition("the worker runs threads of its own: it cannot be cloned");
  }
  // CLONE_PARENT: glibc's fork() has no such option.
  const long pid = ::syscall(SYS_clone, CLONE_PARENT | SIGCHLD, nullptr, nullptr, nullptr, 0);
  if (pid < 0) {
    const Status error = Internal(Errno("clone"));
    ::close(new_sock);
    ::close(new_shared);
    return error;
  }
  if (pid == 0) {
    // Its own group, so that retiring the worker it came from leaves it alone.
    ::setpgid(0, 0);
    ::close(serving.sock);
    ::dup2(new_sock, serving.sock);
    ::fcntl(serving.sock, F_SETFD, FD_CLOEXEC);  // programs it runs must not hold the channel
    ::close(new_sock);
    serving.shared = SharedRegion(Fd(new_shared));
    StartWatchdog(serving.sock);
    return 0;
  }
  ::close(new_sock);
  ::close(new_shared);
  return static_cast<pid_t>(pid);
}

// Observes `indices` into the shared region and describes them in the reply: per index its
// status and where its value lies in the region.
void WriteObservations(Serving& s, const std::vector<int32_t>& indices, Writer& w) {
  Writer payload;
  std::vector<Status> statuses;
  std::vector<uint64_t> ends;
  for (int32_t index : indices) {
    StatusOr<Observation> value = s.env->Observe(index);
    if (value.ok()) WriteObservation(payload, *value);
    statuses.push_back(value.status());
    ends.push_back(payload.buf().size());
  }
  const size_t size = payload.buf().size();
  if (size > 0 && !s.shared.Map(size, /*grow=*/true)) {
    const Status error = ResourceExhausted("cannot grow the shared observation buffer to " +
                                           std::to_string(size) + " bytes");
    for (Status& status : statuses) status = error;
  } else if (size > 0) {
    std::memcpy(s.shared.data, payload.buf().data(), size);
  }
  w.Pod<uint64_t>(indices.size());
  for (size_t i = 0; i < indices.size(); ++i) {
    w.Stat(statuses[i]);
    w.Pod(ends[i]);
  }
}

// Handles one request; false when the worker should exit.
bool Serve(Serving& s, const std::string& request, std::vector<int>& fds) {
  Reader r(request);
  Op op{};
  Writer w;
  if (!r.Pod(&op)) return false;
  switch (op) {
    case Op::kReset: {
      Benchmark benchmark;
      std::vector<int32_t> prefetch;
      if (!ReadBenchmark(r, &benchmark) || !r.Vec(&prefetch)) return false;
      const Status status = s.env->Reset(benchmark);
      w.Stat(status);
      WriteObservations(s, status.ok() ? prefetch : std::vector<int32_t>{}, w);
      break;
    }
    case Op::kStep: {
      int32_t space = 0;
      std::vector<int> actions;
      std::vector<int32_t> prefetch;
      if (!r.Pod(&space) || !r.Vec(&actions) || !r.Vec(&prefetch)) return false;
      Status status = s.env->SetActionSpace(space);
      StatusOr<StepOutcome> outcome = status.ok() ? s.env->Step(actions) : status;
      w.Stat(outcome.status());
      if (outcome.ok()) {
        WriteOutcome(w, *outcome);
        WriteObservations(s, outcome->done ? std::vector<int32_t>{} : prefetch, w);
      }
      break;
    }
    case Op::kObserve: {
      std::vector<int32_t> indices;
      if (!r.Vec(&indices)) return false;
      WriteObservations(s, indices, w);
      break;
    }
    case Op::kFork: {
      if (fds.size() != 2) return false;
      StatusOr<pid_t> child = ForkWorker(s, fds[0], fds[1]);
      fds.clear();
      if (child.ok() && *child == 0) return true;  // the child: its holder awaits no reply
      w.Stat(child.status());
      w.Pod<int32_t>(child.ok() ? *child : -1);
      break;
    }
    case Op::kSetParameter: {
      std::string name, value;
      if (!r.Str(&name) || !r.Str(&value)) return false;
      w.Stat(s.env->SetParameter(name, value));
      break;
    }
    case Op::kGetParameter:
    case Op::kCall: {
      std::string a, b;
      if (!r.Str(&a) || !r.Str(&b)) return false;
      StatusOr<std::string> text = op == Op::kCall ? s.env->Call(a, b) : s.env->GetParameter(a);
      w.Stat(text.status());
      w.Str(text.ok() ? *text : "");
      break;
    }
    default:
      return false;
  }
  return SendFrame(s.sock, w.buf());
}

}  // namespace

int Main(const Registry& registry, int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s ENV_ID MEMORY_LIMIT_MB (started by compiler_gym)\n", argv[0]);
    return 2;
  }
  DisallowBackgroundThreads();
  ::signal(SIGPIPE, SIG_IGN);
  // Interrupts are for the process that holds the env.
  ::signal(SIGINT, SIG_IGN);
  const long long memory_mb = std::atoll(argv[2]);
  if (memory_mb > 0) {
    const rlimit limit = AddressLimit(memory_mb);
    ::setrlimit(RLIMIT_AS, &limit);
  }
  std::set_new_handler([] { WorkerAllocationFailed(); });
  Serving serving;
  serving.shared = SharedRegion(Fd(kWorkerSharedFd));
  ::fcntl(kWorkerSocketFd, F_SETFD, FD_CLOEXEC);
  ::fcntl(kWorkerSharedFd, F_SETFD, FD_CLOEXEC);
  StartWatchdog(serving.sock);
  StatusOr<std::unique_ptr<Env>> env = registry.Make(argv[1]);
  Writer hello;
  hello.Stat(env.status());
  if (!SendFrame(serving.sock, hello.buf()) || !env.ok()) return 1;
  serving.env = std::move(env).value();
  std::string request;
  std::vector<int> fds;
  while (ReadFrame(serving.sock, &request, std::nullopt, &fds) == ReadResult::kOk) {
    if (!Serve(serving, request, fds)) break;
    for (int fd : fds) ::close(fd);
    fds.clear();
  }
  return 0;
}

}  // namespace worker

void WorkerAllocationFailed() {
  // No allocation here: the allocator has just failed. statm's first field is the size of the
  // address space in pages.
  rlimit limit{};
  ::getrlimit(RLIMIT_AS, &limit);
  char text[64] = {};
  const int fd = ::open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    (void)!::read(fd, text, sizeof text - 1);
    ::close(fd);
  }
  const unsigned long long used = std::strtoull(text, nullptr, 10) * ::sysconf(_SC_PAGESIZE);
  if (limit.rlim_cur != RLIM_INFINITY && used >= limit.rlim_cur / 4 * 3) {
    ::_exit(kWorkerOutOfMemoryExit);
  }
  // Far from the limit: an impossible request (a size read from a corrupt file, say), which is
  // a crash like any other, and one LLVM may recover from.
  std::abort();
}

int WorkerMain(const Registry& registry, int argc, char** argv) {
  return worker::Main(registry, argc, argv);
}

}  // namespace compiler_gym
