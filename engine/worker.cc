#include "engine/worker.h"

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

extern char** environ;

namespace compiler_gym {

namespace {

// The soft limit only: programs the worker runs (engine/sandbox.h) may raise theirs back.
rlimit AddressLimit(int64_t mb) {
  return rlimit{mb > 0 ? static_cast<rlim_t>(mb) << 20 : RLIM_INFINITY, RLIM_INFINITY};
}

// Descriptors a worker finds at startup.
constexpr int kWorkerSocketFd = 3;
constexpr int kWorkerSharedFd = 4;

std::string Errno(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Fd& operator=(Fd&& other) noexcept {
    if (this != &other) {
      Reset();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  ~Fd() { Reset(); }
  int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }
  void Reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

// --- wire format ----------------------------------------------------------------------------
// Native byte order and sizes: both ends are the same build on the same machine.

class Writer {
 public:
  template <typename T>
  void Pod(T value) {
    static_assert(std::is_trivially_copyable_v<T>);
    buf_.append(reinterpret_cast<const char*>(&value), sizeof value);
  }
  void Str(std::string_view s) {
    Pod<uint64_t>(s.size());
    buf_.append(s);
  }
  template <typename T>
  void Vec(const std::vector<T>& v) {
    Pod<uint64_t>(v.size());
    buf_.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
  }
  void Strs(const std::vector<std::string>& v) {
    Pod<uint64_t>(v.size());
    for (const std::string& s : v) Str(s);
  }
  void Stat(const Status& status) {
    Pod<uint8_t>(static_cast<uint8_t>(status.code()));
    Str(status.message());
  }
  std::string& buf() { return buf_; }

 private:
  std::string buf_;
};

class Reader {
 public:
  Reader(const char* data, size_t size) : p_(data), end_(data + size) {}
  explicit Reader(const std::string& s) : Reader(s.data(), s.size()) {}

  template <typename T>
  bool Pod(T* out) {
    if (static_cast<size_t>(end_ - p_) < sizeof(T)) return false;
    std::memcpy(out, p_, sizeof(T));
    p_ += sizeof(T);
    return true;
  }
  bool Str(std::string* out) {
    uint64_t n = 0;
    if (!Pod(&n) || static_cast<uint64_t>(end_ - p_) < n) return false;
    out->assign(p_, n);
    p_ += n;
    return true;
  }
  template <typename T>
  bool Vec(std::vector<T>* out) {
    uint64_t n = 0;
    if (!Pod(&n) || static_cast<uint64_t>(end_ - p_) / sizeof(T) < n) return false;
    out->resize(n);
    std::memcpy(out->data(), p_, n * sizeof(T));
    p_ += n * sizeof(T);
    return true;
  }
  bool Strs(std::vector<std::string>* out) {
    uint64_t n = 0;
    if (!Pod(&n) || n > static_cast<uint64_t>(end_ - p_)) return false;
    out->resize(n);
    for (std::string& s : *out) {
      if (!Str(&s)) return false;
    }
    return true;
  }
  bool Stat(Status* out) {
    uint8_t code = 0;
    std::string message;
    if (!Pod(&code) || !Str(&message)) return false;
    *out = code == 0 ? Status::Ok() : Status(static_cast<StatusCode>(code), std::move(message));
    return true;
  }

 private:
  const char* p_;
  const char* end_;
};

enum class Op : uint8_t { kReset = 1, kStep, kObserve, kFork, kSetParameter, kGetParameter, kCall };

void WriteBenchmark(Writer& w, const Benchmark& b) {
  w.Str(b.uri);
  w.Strs(b.files);
  w.Str(b.data);
  w.Strs(b.compile_args);
  w.Strs(b.link_args);
  w.Strs(b.run_args);
  w.Pod<uint8_t>(b.buildable);
  w.Pod<uint8_t>(b.runnable);
  w.Str(b.expected_output);
  w.Pod<double>(b.build_timeout_seconds);
  w.Pod<uint64_t>(b.known_costs.size());
  for (const auto& [name, cost] : b.known_costs) {
    w.Str(name);
    w.Pod<int64_t>(cost);
  }
}

bool ReadBenchmark(Reader& r, Benchmark* b) {
  uint8_t buildable = 0, runnable = 0;
  if (!(r.Str(&b->uri) && r.Strs(&b->files) && r.Str(&b->data) && r.Strs(&b->compile_args) &&
        r.Strs(&b->link_args) && r.Strs(&b->run_args) && r.Pod(&buildable) && r.Pod(&runnable) &&
        r.Str(&b->expected_output) && r.Pod(&b->build_timeout_seconds))) {
    return false;
  }
  b->buildable = buildable;
  b->runnable = runnable;
  uint64_t costs = 0;
  if (!r.Pod(&costs)) return false;
  b->known_costs.clear();
  for (uint64_t i = 0; i < costs; ++i) {
    std::pair<std::string, int64_t> cost;
    if (!r.Str(&cost.first) || !r.Pod(&cost.second)) return false;
    b->known_costs.push_back(std::move(cost));
  }
  return true;
}

void WriteObservation(Writer& w, const Observation& value) {
  w.Pod<uint8_t>(static_cast<uint8_t>(value.index()));
  std::visit(
      [&w](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
        } else if constexpr (std::is_same_v<T, int64_t> || std::is_same_v<T, double>) {
          w.Pod(v);
        } else if constexpr (std::is_same_v<T, bool>) {
          w.Pod<uint8_t>(v);
        } else if constexpr (std::is_same_v<T, Text> || std::is_same_v<T, Bytes> ||
                             std::is_same_v<T, Json>) {
          w.Str(v.data);
        } else if constexpr (std::is_same_v<T, GraphPtr>) {
          const Graph& g = *v;
          for (const auto* field :
               {&g.node_type, &g.node_text_id, &g.node_function, &g.node_block, &g.edge_source,
                &g.edge_target, &g.edge_flow, &g.edge_position}) {
            w.Vec(*field);
          }
          w.Strs(g.node_text);
          w.Strs(g.node_full_text);
        } else {
          w.Vec(v);  // vectors of numbers
        }
      },
      value);
}

// Builds the alternative with index `i` and reads its value.
template <size_t I = 0>
bool ReadAlternative(Reader& r, size_t i, Observation* out) {
  if constexpr (I == std::variant_size_v<Observation>) {
    return false;
  } else {
    if (i != I) return ReadAlternative<I + 1>(r, i, out);
    using T = std::variant_alternative_t<I, Observation>;
    if constexpr (std::is_same_v<T, std::monostate>) {
      *out = std::monostate{};
      return true;
    } else if constexpr (std::is_same_v<T, int64_t> || std::is_same_v<T, double>) {
      T v{};
      if (!r.Pod(&v)) return false;
      *out = v;
      return true;
    } else if constexpr (std::is_same_v<T, bool>) {
      uint8_t v = 0;
      if (!r.Pod(&v)) return false;
      *out = v != 0;
      return true;
    } else if constexpr (std::is_same_v<T, Text> || std::is_same_v<T, Bytes> ||
                         std::is_same_v<T, Json>) {
      T v;
      if (!r.Str(&v.data)) return false;
      *out = std::move(v);
      return true;
    } else if constexpr (std::is_same_v<T, GraphPtr>) {
      auto g = std::make_shared<Graph>();
      for (auto* field : {&g->node_type, &g->node_text_id, &g->node_function, &g->node_block,
                          &g->edge_source, &g->edge_target, &g->edge_flow, &g->edge_position}) {
        if (!r.Vec(field)) return false;
      }
      if (!r.Strs(&g->node_text) || !r.Strs(&g->node_full_text)) return false;
      *out = GraphPtr(std::move(g));
      return true;
    } else {
      T v;
      if (!r.Vec(&v)) return false;
      *out = std::move(v);
      return true;
    }
  }
}

bool ReadObservation(Reader& r, Observation* out) {
  uint8_t index = 0;
  return r.Pod(&index) && ReadAlternative(r, index, out);
}

void WriteOutcome(Writer& w, const StepOutcome& o) {
  w.Pod<uint8_t>(o.action_had_no_effect);
  w.Pod<uint8_t>(o.done);
  w.Stat(o.error);
  w.Pod(o.compute_seconds);
  w.Pod(o.verify_seconds);
  w.Pod<int32_t>(o.actions_applied);
}

bool ReadOutcome(Reader& r, StepOutcome* o) {
  uint8_t no_effect = 0, done = 0;
  int32_t applied = 0;
  if (!(r.Pod(&no_effect) && r.Pod(&done) && r.Stat(&o->error) && r.Pod(&o->compute_seconds) &&
        r.Pod(&o->verify_seconds) && r.Pod(&applied))) {
    return false;
  }
  o->action_had_no_effect = no_effect;
  o->done = done;
  o->actions_applied = applied;
  return true;
}

// --- framing --------------------------------------------------------------------------------
// A frame is its length (uint64) and its bytes. Descriptors ride along with a frame's first
// byte (SCM_RIGHTS).

bool SendAll(int fd, const char* data, size_t size, const std::vector<int>& fds = {}) {
  bool fds_sent = fds.empty();
  while (size > 0) {
    ssize_t n;
    if (!fds_sent) {
      iovec iov{const_cast<char*>(data), size};
      std::vector<char> control(CMSG_SPACE(sizeof(int) * fds.size()), 0);
      msghdr msg{};
      msg.msg_iov = &iov;
      msg.msg_iovlen = 1;
      msg.msg_control = control.data();
      msg.msg_controllen = control.size();
      cmsghdr* cmsg = CMSG_FIRSTHDR(&msg);
      cmsg->cmsg_level = SOL_SOCKET;
      cmsg->cmsg_type = SCM_RIGHTS;
      cmsg->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
      std::memcpy(CMSG_DATA(cmsg), fds.data(), sizeof(int) * fds.size());
      n = ::sendmsg(fd, &msg, MSG_NOSIGNAL);
      if (n > 0) fds_sent = true;
    } else {
      n = ::send(fd, data, size, MSG_NOSIGNAL);
    }
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

bool SendFrame(int fd, const std::string& body, const std::vector<int>& fds = {}) {
  std::string frame;
  frame.reserve(sizeof(uint64_t) + body.size());
  const uint64_t size = body.size();
  frame.append(reinterpret_cast<const char*>(&size), sizeof size);
  frame.append(body);
  return SendAll(fd, frame.data(), frame.size(), fds);
}

enum class ReadResult { kOk, kClosed, kTimeout };

// Reads exactly `size` bytes, waiting at most until `deadline` (none when unset). Descriptors
// that arrive are appended to `fds` (the caller owns them).
ReadResult ReadAll(int fd, char* data, size_t size,
                   std::optional<std::chrono::steady_clock::time_point> deadline,
                   std::vector<int>* fds) {
  // With a deadline, a read that would block waits in poll(); what has already arrived (a
  // started step's reply, often) is taken without it.
  bool wait = false;
  while (size > 0) {
    if (deadline && wait) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          *deadline - std::chrono::steady_clock::now());
      if (left.count() < 0) return ReadResult::kTimeout;
      pollfd p{fd, POLLIN, 0};
      const int ready = ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count() + 1, 60000)));
      if (ready < 0 && errno != EINTR) return ReadResult::kClosed;
      if (ready <= 0) continue;
    }
    wait = true;
    iovec iov{data, size};
    char control[CMSG_SPACE(sizeof(int) * 4)];
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    const ssize_t n = ::recvmsg(fd, &msg, MSG_CMSG_CLOEXEC | (deadline ? MSG_DONTWAIT : 0));
    if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
    if (n <= 0) return ReadResult::kClosed;
    wait = false;
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
      if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
      const size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      for (size_t i = 0; i < count; ++i) {
        int received;
        std::memcpy(&received, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
        if (fds != nullptr) {
          fds->push_back(received);
        } else {
          ::close(received);
        }
      }
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
  return ReadResult::kOk;
}

ReadResult ReadFrame(int fd, std::string* body,
                     std::optional<std::chrono::steady_clock::time_point> deadline,
                     std::vector<int>* fds = nullptr) {
  uint64_t size = 0;
  ReadResult result = ReadAll(fd, reinterpret_cast<char*>(&size), sizeof size, deadline, fds);
  if (result != ReadResult::kOk) return result;
  body->resize(size);
  return ReadAll(fd, body->data(), size, deadline, fds);
}

// A memfd mapped in this process; the writer grows it, the reader remaps when it has grown.
struct SharedRegion {
  Fd fd;
  char* data = nullptr;
  size_t size = 0;

  SharedRegion() = default;
  explicit SharedRegion(Fd f) : fd(std::move(f)) {}
  SharedRegion(SharedRegion&& other) noexcept
      : fd(std::move(other.fd)),
        data(std::exchange(other.data, nullptr)),
        size(std::exchange(other.size, 0)) {}
  SharedRegion& operator=(SharedRegion&& other) noexcept {
    if (this != &other) {
      Unmap();
      fd = std::move(other.fd);
      data = std::exchange(other.data, nullptr);
      size = std::exchange(other.size, 0);
    }
    return *this;
  }
  ~SharedRegion() { Unmap(); }

  void Unmap() {
    if (data != nullptr) ::munmap(data, size);
    data = nullptr;
    size = 0;
  }
  // Maps at least `bytes`, growing the file first when `grow`.
  bool Map(size_t bytes, bool grow) {
    if (bytes <= size && data != nullptr) return true;
    size_t target = bytes;
    if (grow) {
      target = std::max<size_t>(bytes, std::max<size_t>(size * 2, 1 << 16));
      if (::ftruncate(fd.get(), static_cast<off_t>(target)) != 0) return false;
    } else {
      struct stat st{};
      if (::fstat(fd.get(), &st) != 0 || static_cast<size_t>(st.st_size) < bytes) return false;
      target = static_cast<size_t>(st.st_size);
    }
    Unmap();
    void* p = ::mmap(nullptr, target, PROT_READ | PROT_WRITE, MAP_SHARED, fd.get(), 0);
    if (p == MAP_FAILED) return false;
    data = static_cast<char*>(p);
    size = target;
    return true;
  }
};

StatusOr<Fd> NewSharedFd() {
  const int fd = ::memfd_create("compiler_gym-observations", MFD_CLOEXEC);
  if (fd < 0) return Internal(Errno("memfd_create"));
  return Fd(fd);
}

std::string SignalName(int sig) {
  const char* name = ::strsignal(sig);
  return std::to_string(sig) + (name ? std::string(" (") + name + ")" : "");
}

// --- the env's side ------------------------------------------------------------------------

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
      char* end = nullptr;
      const double number = std::strtod(value.c_str(), &end);
      if (value.empty() || end != value.c_str() + value.size() || !(number >= 0) ||
          !std::isfinite(number)) {
        return InvalidArgument(name + " must be a number >= 0, got " + value);
      }
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
// worker's address-space limit after about a thousand generations).
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

StatusOr<std::unique_ptr<Env>> MakeRemoteEnv(const WorkerOptions& options, const EnvSpec& spec) {
  if (options.step_timeout_seconds <= 0) return InvalidArgument("step timeout must be > 0");
  if (options.memory_limit_mb < 0) return InvalidArgument("memory limit must be >= 0");
  auto env = std::make_unique<RemoteEnv>(std::make_shared<const EnvSpec>(spec), options);
  RETURN_IF_ERROR(env->Spawn());
  return std::unique_ptr<Env>(std::move(env));
}

int WorkerMain(const Registry& registry, int argc, char** argv) {
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

}  // namespace compiler_gym
