// The env's side of the process-isolated executor (engine/worker.h): RemoteEnv, an Env whose
// family runs in a worker process it starts, talks to over the worker protocol, and replaces
// when it dies.
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
#include <cstdlib>
#include <cstring>
#include <new>
#include <optional>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "engine/worker.h"

extern char** environ;

#include "engine/worker_protocol.h"

namespace compiler_gym {
namespace worker {
namespace {

class RemoteEnv final : public Env {
 public:
  RemoteEnv(std::shared_ptr<const EnvSpec> spec, WorkerOptions options)
      : spec_(std::move(spec)),
        options_(std::move(options)),
        cache_(spec_->observation_spaces.size()) {}
  ~RemoteEnv() override { Retire(/*graceful=*/true); }

  const EnvSpec& Spec() const override { return *spec_; }

  Status Spawn() {
    ASSIGN_OR_RETURN(Fd shared, NewSharedFd());
    int pair[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
      return Internal(Errno("socketpair"));
    }
    Fd mine(pair[0]), theirs(pair[1]);
    const std::string memory = std::to_string(options_.memory_limit_mb);
    std::vector<char*> argv = {const_cast<char*>(options_.worker_path.c_str()),
                               const_cast<char*>(options_.env_id.c_str()),
                               const_cast<char*>(memory.c_str()), nullptr};
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attr);
    // dup2 clears close-on-exec on the copies; the originals close at exec. The sources must
    // not be 3 or 4 themselves, or dup2 would be a no-op that leaves close-on-exec set.
    Fd sock_src(::fcntl(theirs.get(), F_DUPFD_CLOEXEC, 10));
    Fd shared_src(::fcntl(shared.get(), F_DUPFD_CLOEXEC, 10));
    posix_spawn_file_actions_adddup2(&actions, sock_src.get(), kWorkerSocketFd);
    posix_spawn_file_actions_adddup2(&actions, shared_src.get(), kWorkerSharedFd);
    // Its own process group: a Ctrl-C at the terminal is for the caller, who decides what to
    // do with its envs; and retiring the worker kills whatever it started.
    posix_spawnattr_setpgroup(&attr, 0);
    sigset_t defaults;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    sigaddset(&defaults, SIGINT);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setflags(
        &attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    pid_t pid = -1;
    const int error =
        ::posix_spawn(&pid, options_.worker_path.c_str(), &actions, &attr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    if (error != 0) {
      if (error == ENOENT) return NotFound("no worker executable at " + options_.worker_path);
      return ErrnoStatus(error, "cannot start " + options_.worker_path);
    }
    pid_ = pid;
    sock_ = std::move(mine);
    shared_ = SharedRegion(std::move(shared));
    greeted_ = false;
    return Status::Ok();
  }

  // Deterministic observations are kept until the state changes, and the ones asked for after
  // a step (or reset) come back with the next step's reply: a vector engine that observes the
  // same spaces and rewards every step pays one round trip per step, not one per value.
  StatusOr<Observation> Observe(int index) override {
    const bool deterministic = index >= 0 && index < static_cast<int>(cache_.size()) &&
                               spec_->observation_spaces[index].deterministic;
    if (deterministic) {
      if (std::find(wanted_.begin(), wanted_.end(), index) == wanted_.end()) {
        wanted_.push_back(index);
      }
      if (cache_[index]) return *cache_[index];
    }
    Writer w;
    w.Pod(Op::kObserve);
    w.Vec(std::vector<int32_t>{index});
    ASSIGN_OR_RETURN(std::string reply, Request(w.buf()));
    Reader r(reply);
    std::vector<StatusOr<Observation>> values;
    if (!ReadObservations(r, 1, &values)) return Garbled();
    if (deterministic) cache_[index] = values[0];
    return values[0];
  }

  Status SetParameter(const std::string& name, const std::string& value) override {
    if (name == kStepTimeoutParameter || name == kMemoryLimitParameter) {
      ASSIGN_OR_RETURN(const double number, ParseNumberParameter(name, value));
      if (number < 0) return InvalidArgument(name + " must be a number >= 0, got " + value);
      if (name == kStepTimeoutParameter) {
        if (number <= 0) return InvalidArgument(name + " must be > 0, got " + value);
        options_.step_timeout_seconds = number;
        return Status::Ok();
      }
      // Past 2^40 MB (a petabyte of address space) the cast to int64_t bytes would overflow.
      if (number > 1099511627776.0) {
        return InvalidArgument(name + " must be at most 2^40 (MB), got " + value);
      }
      options_.memory_limit_mb = static_cast<int64_t>(number);
      if (pid_ > 0) {
        // After the worker has set its own limit, or it would overwrite this one.
        RETURN_IF_ERROR(AwaitHello(Deadline()));
        const rlimit limit = AddressLimit(options_.memory_limit_mb);
        if (::prlimit(pid_, RLIMIT_AS, &limit, nullptr) != 0) return Internal(Errno("prlimit"));
      }
      return Status::Ok();
    }
    RETURN_IF_ERROR(EnsureWorker());
    for (auto& entry : cache_) entry.reset();  // a setting may change what observations say
    RETURN_IF_ERROR(SendParameter(name, value));
    // A new worker gets the same settings, in the same order; test hooks are one-shot.
    if (name.starts_with("testing.")) return Status::Ok();
    std::erase_if(parameters_, [&](const auto& p) { return p.first == name; });
    parameters_.emplace_back(name, value);
    return Status::Ok();
  }

  StatusOr<std::string> GetParameter(const std::string& name) const override {
    if (name == kStepTimeoutParameter) return std::to_string(options_.step_timeout_seconds);
    if (name == kMemoryLimitParameter) return std::to_string(options_.memory_limit_mb);
    auto* self = const_cast<RemoteEnv*>(this);
    RETURN_IF_ERROR(self->EnsureWorker());
    return self->TextRequest(Op::kGetParameter, name, "");
  }

  StatusOr<std::string> Call(const std::string& method, const std::string& argument) override {
    if (pid_ < 0) return NoEpisode(Gone());
    for (auto& entry : cache_) entry.reset();  // what a family's operation does is its own
    return TextRequest(Op::kCall, method, argument);
  }

  pid_t pid() const { return pid_; }

 protected:
  Status DoReset(const Benchmark& benchmark) override {
    RETURN_IF_ERROR(EnsureWorker());
    const std::vector<int32_t> prefetch = TakePrefetch();
    Writer w;
    w.Pod(Op::kReset);
    WriteBenchmark(w, benchmark);
    w.Vec(prefetch);
    ASSIGN_OR_RETURN(std::string reply, Request(w.buf()));
    Reader r(reply);
    Status status;
    if (!r.Stat(&status) || !StorePrefetched(r, status.ok() ? prefetch : std::vector<int32_t>{})) {
      return Garbled();
    }
    // A benchmark that failed to load may have done so by crashing the parser, contained but
    // suspect: the next episode gets a fresh process.
    if (!status.ok()) Retire(/*graceful=*/false);
    steps_.clear();
    benchmark_.reset();
    if (status.ok()) benchmark_ = std::make_shared<const Benchmark>(benchmark);
    return status;
  }

  // The request goes out now and its reply is read in DoStep, so that a vector engine's
  // workers all run while its threads wait. Only for a worker that has greeted: waiting for a
  // new one is DoStep's business.
  void DoStartStep(std::span<const int> actions) override {
    if (pid_ > 0 && greeted_ && !pending_) SendStep(actions);
  }

  StatusOr<StepOutcome> DoStep(std::span<const int> actions) override {
    if (pending_ && (pending_->action_space != action_space() ||
                     !std::equal(actions.begin(), actions.end(), pending_->actions.begin(),
                                 pending_->actions.end()))) {
      return AbandonStartedStep("a step was started with other actions than the one taken");
    }
    if (!pending_) {
      if (pid_ < 0) return NoEpisode(Gone());
      SendStep(actions);
    }
    PendingStep pending = std::move(*pending_);
    pending_.reset();
    StatusOr<std::string> reply =
        pending.sent.ok() ? ReadReply(pending.deadline) : StatusOr<std::string>(pending.sent);
    StepOutcome outcome;
    if (!reply.ok()) {
      // The worker is gone: the step ends the episode with the reason. Which of several
      // actions it was in is unknown; all count as applied, as when the last one fails.
      outcome.done = true;
      outcome.error = reply.status();
      return outcome;
    }
    Reader r(*reply);
    Status status;
    if (!r.Stat(&status)) return Garbled();
    RETURN_IF_ERROR(status);
    if (!ReadOutcome(r, &outcome) ||
        !StorePrefetched(r, outcome.done ? std::vector<int32_t>{} : pending.prefetch)) {
      return Garbled();
    }
    const int all = static_cast<int>(pending.actions.size());  // as Env::Step counts them
    steps_.emplace_back(pending.action_space,
                        outcome.actions_applied < 0 ? all : std::min(all, outcome.actions_applied));
    // An error that ends the episode may have left the worker unreliable (a crash that LLVM
    // recovered from leaves its heap suspect): the next episode gets a fresh process.
    if (outcome.done) Retire(/*graceful=*/false);
    return outcome;
  }

  StatusOr<std::unique_ptr<Env>> DoFork() override {
    if (pid_ < 0) return NoEpisode(Gone());
    StatusOr<std::unique_ptr<Env>> clone = ForkByClone();
    // A worker with threads of its own (loop_tool's kernel threads, a GPU driver's) cannot be
    // cloned: the clone would have none of them. A new worker replays the episode instead.
    if (clone.status().code() == StatusCode::kFailedPrecondition) return ForkByReplay();
    return clone;
  }

 private:
  StatusOr<std::unique_ptr<Env>> ForkByClone() {
    ASSIGN_OR_RETURN(Fd shared, NewSharedFd());
    int pair[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
      return Internal(Errno("socketpair"));
    }
    Fd mine(pair[0]), theirs(pair[1]);
    Writer w;
    w.Pod(Op::kFork);
    ASSIGN_OR_RETURN(std::string reply, Request(w.buf(), {theirs.get(), shared.get()}));
    Reader r(reply);
    Status status;
    int32_t child = -1;
    if (!r.Stat(&status) || !r.Pod(&child)) return Garbled();
    RETURN_IF_ERROR(status);
    // The child is ours (CLONE_PARENT) and moves to a process group of its own once it runs;
    // moved here too, before anything can retire its sibling: killing the sibling's group must
    // not take a child that has not run yet (both moves are the same; whichever comes second
    // does nothing).
    ::setpgid(child, child);
    auto copy = std::make_unique<RemoteEnv>(spec_, options_);
    copy->pid_ = child;
    copy->sock_ = std::move(mine);
    copy->shared_ = SharedRegion(std::move(shared));
    copy->greeted_ = true;  // a fork says nothing until asked
    copy->parameters_ = parameters_;
    copy->benchmark_ = benchmark_;
    copy->steps_ = steps_;
    return std::unique_ptr<Env>(std::move(copy));
  }

  // A fork made by a new worker that resets to the benchmark and takes the episode's steps
  // again, each in its action space (Env::Fork then copies the engine's bookkeeping).
  StatusOr<std::unique_ptr<Env>> ForkByReplay() {
    if (benchmark_ == nullptr) return NoEpisode(Gone());
    auto copy = std::make_unique<RemoteEnv>(spec_, options_);
    copy->parameters_ = parameters_;
    RETURN_IF_ERROR(copy->Reset(*benchmark_));
    size_t taken = 0;
    for (const auto& [space, count] : steps_) {
      RETURN_IF_ERROR(copy->SetActionSpace(space));
      const std::span<const int> step(actions().data() + taken, count);
      ASSIGN_OR_RETURN(const StepOutcome outcome, copy->Step(step));
      if (!outcome.error.ok()) return outcome.error;
      taken += count;
    }
    return std::unique_ptr<Env>(std::move(copy));
  }

  // A worker with the env's settings: the one it has, or a new one.
  Status EnsureWorker() {
    if (pid_ > 0) return Status::Ok();
    RETURN_IF_ERROR(Spawn());
    for (const auto& [name, value] : parameters_) RETURN_IF_ERROR(SendParameter(name, value));
    return Status::Ok();
  }

  Status SendParameter(const std::string& name, const std::string& value) {
    Writer w;
    w.Pod(Op::kSetParameter);
    w.Str(name);
    w.Str(value);
    ASSIGN_OR_RETURN(std::string reply, Request(w.buf()));
    Reader r(reply);
    Status status;
    if (!r.Stat(&status)) return Garbled();
    return status;
  }

  // A step whose request has gone out (or failed to: `sent` says why) and whose reply is
  // still to be read.
  struct PendingStep {
    std::vector<int> actions;
    int action_space = 0;
    std::vector<int32_t> prefetch;
    std::chrono::steady_clock::time_point deadline;
    Status sent;
  };

  void SendStep(std::span<const int> actions) {
    PendingStep& p = pending_.emplace();
    p.actions.assign(actions.begin(), actions.end());
    p.action_space = action_space();
    p.prefetch = TakePrefetch();
    p.deadline = Deadline();
    Writer w;
    w.Pod(Op::kStep);
    w.Pod<int32_t>(p.action_space);
    w.Vec(p.actions);
    w.Vec(p.prefetch);
    p.sent = SendRequest(w.buf(), p.deadline);
  }

  // The worker ran (or is running) a step that the env has not taken: it is a step ahead of
  // what the env records, so it cannot be trusted again.
  Status AbandonStartedStep(const std::string& why) {
    pending_.reset();
    Retire(/*graceful=*/false);
    last_error_ = Internal(why);
    return last_error_;
  }

  std::string Gone() const {
    return last_error_.ok()
               ? "the env has no worker; call reset()"
               : "the env's worker is gone (" + last_error_.message() + "); call reset()";
  }

  // Reads what WriteObservations wrote for `count` indices.
  bool ReadObservations(Reader& r, size_t count, std::vector<StatusOr<Observation>>* out) {
    uint64_t n = 0;
    if (!r.Pod(&n) || n != count) return false;
    std::vector<std::pair<Status, uint64_t>> entries(n);
    for (auto& [status, end] : entries) {
      if (!r.Stat(&status) || !r.Pod(&end)) return false;
    }
    const uint64_t size = n > 0 ? entries.back().second : 0;
    if (size > 0 && !shared_.Map(size, /*grow=*/false)) return false;
    uint64_t begin = 0;
    for (const auto& [status, end] : entries) {
      if (end < begin || end > size) return false;
      if (!status.ok()) {
        out->push_back(status);
      } else {
        Reader payload(shared_.data + begin, end - begin);
        Observation value;
        if (!ReadObservation(payload, &value)) return false;
        out->push_back(std::move(value));
      }
      begin = end;
    }
    return true;
  }

  // The state changes: nothing cached holds. What was observed since the last change is what
  // the next reply brings along.
  std::vector<int32_t> TakePrefetch() {
    for (auto& entry : cache_) entry.reset();
    std::vector<int32_t> prefetch(wanted_.begin(), wanted_.end());
    wanted_.clear();
    return prefetch;
  }

  bool StorePrefetched(Reader& r, const std::vector<int32_t>& prefetch) {
    std::vector<StatusOr<Observation>> values;
    if (!ReadObservations(r, prefetch.size(), &values)) return false;
    for (size_t i = 0; i < prefetch.size(); ++i) cache_[prefetch[i]] = std::move(values[i]);
    return true;
  }

  Status Garbled() {
    Retire(/*graceful=*/false);
    last_error_ = Internal("garbled reply from the worker");
    return last_error_;
  }

  StatusOr<std::string> TextRequest(Op op, const std::string& a, const std::string& b) {
    Writer w;
    w.Pod(op);
    w.Str(a);
    w.Str(b);
    ASSIGN_OR_RETURN(std::string reply, Request(w.buf()));
    Reader r(reply);
    Status status;
    std::string text;
    if (!r.Stat(&status) || !r.Str(&text)) return Garbled();
    RETURN_IF_ERROR(status);
    return text;
  }

  // The worker's first words say whether it could make its env; by then it has set up its
  // process (its memory limit, say).
  Status AwaitHello(std::chrono::steady_clock::time_point deadline) {
    if (greeted_) return Status::Ok();
    std::string reply;
    ReadResult hello = ReadFrame(sock_.get(), &reply, deadline);
    if (hello != ReadResult::kOk) return Lost(hello);
    Reader r(reply);
    Status status;
    if (!r.Stat(&status)) return Garbled();
    if (!status.ok()) {
      Retire(/*graceful=*/false);
      last_error_ = status;
      return status;
    }
    greeted_ = true;
    return Status::Ok();
  }

  std::chrono::steady_clock::time_point Deadline() const {
    return std::chrono::steady_clock::now() +
           std::chrono::duration_cast<std::chrono::steady_clock::duration>(
               std::chrono::duration<double>(options_.step_timeout_seconds));
  }

  // Sends a request and waits for its reply under the deadline. When the worker dies or runs
  // past the deadline it is reaped (killed first in the second case), and the error says how
  // it ended.
  StatusOr<std::string> Request(const std::string& request, const std::vector<int>& fds = {}) {
    // A started step must be taken before anything else is asked: its reply is next.
    if (pending_) return AbandonStartedStep("a request came between a started step and the step");
    if (pid_ < 0) return NoEpisode(Gone());
    const auto deadline = Deadline();
    RETURN_IF_ERROR(SendRequest(request, deadline, fds));
    return ReadReply(deadline);
  }

  // Request's halves, which a started step takes apart: the request goes out once the worker
  // has greeted, ...
  Status SendRequest(const std::string& request, std::chrono::steady_clock::time_point deadline,
                     const std::vector<int>& fds = {}) {
    RETURN_IF_ERROR(AwaitHello(deadline));
    if (!SendFrame(sock_.get(), request, fds)) return Lost(ReadResult::kClosed);
    return Status::Ok();
  }

  // ... and its reply comes back by the deadline.
  StatusOr<std::string> ReadReply(std::chrono::steady_clock::time_point deadline) {
    std::string reply;
    const ReadResult result = ReadFrame(sock_.get(), &reply, deadline);
    if (result != ReadResult::kOk) return Lost(result);
    return reply;
  }

  Status Lost(ReadResult how) {
    const pid_t pid = pid_;
    if (pid <= 0) {
      // Already retired (by a call from another thread): kill(-1) and waitpid(-1) would reach
      // every process of this user and reap the caller's other children.
      last_error_ = Crash("lost the worker (it was already stopped)");
      return last_error_;
    }
    if (how == ReadResult::kTimeout) {
      Retire(/*graceful=*/false);
      last_error_ = DeadlineExceeded("the worker took longer than " +
                                     std::to_string(options_.step_timeout_seconds) + " s (" +
                                     kStepTimeoutParameter + ") and was killed");
      return last_error_;
    }
    // The socket closed: the worker is exiting or has exited, and how is already decided (the
    // kill cannot change it). Reap it to learn how.
    ::kill(pid, SIGKILL);
    int wstatus = 0;
    pid_t reaped;
    do {
      reaped = ::waitpid(pid, &wstatus, 0);
    } while (reaped < 0 && errno == EINTR);
    ::kill(-pid, SIGKILL);  // whatever it started
    pid_ = -1;
    sock_.Reset();
    shared_ = SharedRegion();
    if (reaped != pid) {
      last_error_ = Crash("lost the worker (pid " + std::to_string(pid) + ")");
    } else if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == kWorkerOutOfMemoryExit) {
      last_error_ =
          ResourceExhausted("the worker ran out of memory (" + std::string(kMemoryLimitParameter) +
                            " = " + std::to_string(options_.memory_limit_mb) + ")");
    } else if (WIFSIGNALED(wstatus)) {
      last_error_ = Crash("the worker was killed by signal " + SignalName(WTERMSIG(wstatus)));
    } else {
      last_error_ = Crash("the worker exited with code " + std::to_string(WEXITSTATUS(wstatus)));
    }
    return last_error_;
  }

  // Ends the worker: gracefully (it sees the socket close and exits, cleaning up) or at once.
  void Retire(bool graceful) {
    if (pid_ < 0) return;
    const pid_t pid = pid_;
    pid_ = -1;
    sock_.Reset();
    shared_ = SharedRegion();
    int wstatus = 0;
    if (graceful) {
      // A worker in the middle of a long step would not notice for a while: give it a moment.
      for (int i = 0; i < 200; ++i) {
        if (::waitpid(pid, &wstatus, WNOHANG) == pid) {
          ::kill(-pid, SIGKILL);
          return;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(i < 20 ? 1 : 10));
      }
    }
    ::kill(-pid, SIGKILL);
    ::kill(pid, SIGKILL);  // a forked worker leads no group of its own
    while (::waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
    }
  }

  std::shared_ptr<const EnvSpec> spec_;
  WorkerOptions options_;
  pid_t pid_ = -1;
  Fd sock_;
  SharedRegion shared_;
  bool greeted_ = false;
  Status last_error_;
  std::vector<std::pair<std::string, std::string>> parameters_;
  std::vector<std::optional<StatusOr<Observation>>> cache_;  // by observation index
  std::vector<int> wanted_;  // deterministic observations asked for since the state changed
  std::optional<PendingStep> pending_;
  // The episode, for a fork that replays it: its benchmark, and per step its action space
  // and how many of actions() it applied.
  std::shared_ptr<const Benchmark> benchmark_;
  std::vector<std::pair<int, int>> steps_;
};

// --- the worker's side ----------------------------------------------------------------------

// The watchdog's stack is small: a fork (a raw clone, without glibc's bookkeeping) keeps the
// stack of its parent's watchdog, which does not run there, and starts its own, so each
// generation of forks of forks holds one more (with the default 8 MiB each, fork chains hit the
}  // namespace
}  // namespace worker

StatusOr<std::unique_ptr<Env>> MakeRemoteEnv(const WorkerOptions& options, const EnvSpec& spec) {
  if (options.step_timeout_seconds <= 0) return InvalidArgument("step timeout must be > 0");
  if (options.memory_limit_mb < 0) return InvalidArgument("memory limit must be >= 0");
  auto env = std::make_unique<worker::RemoteEnv>(std::make_shared<const EnvSpec>(spec), options);
  RETURN_IF_ERROR(env->Spawn());
  return std::unique_ptr<Env>(std::move(env));
}

}  // namespace compiler_gym
