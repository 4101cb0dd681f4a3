#include "engine/sandbox.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

namespace compiler_gym {

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(const timeval& tv) { return tv.tv_sec + tv.tv_usec * 1e-6; }

// Closes a descriptor when it goes out of scope.
struct Fd {
  int fd = -1;
  Fd() = default;
  explicit Fd(int f) : fd(f) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { Close(); }
  void Close() {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
};

enum class ReadState { kData, kEnd, kEmpty };

// Appends what one read() gives on `fd` to `out`, keeping at most `limit` bytes in all.
ReadState Drain(int fd, std::string& out, size_t limit, bool& truncated) {
  char buffer[16384];
  const ssize_t n = ::read(fd, buffer, sizeof(buffer));
  if (n < 0) {
    if (errno == EINTR) return ReadState::kData;
    return errno == EAGAIN ? ReadState::kEmpty : ReadState::kEnd;
  }
  if (n == 0) return ReadState::kEnd;
  const size_t keep = out.size() < limit ? std::min(limit - out.size(), static_cast<size_t>(n)) : 0;
  out.append(buffer, keep);
  if (keep < static_cast<size_t>(n)) truncated = true;
  return ReadState::kData;
}

}  // namespace

std::string ProcessResult::Describe(const SandboxLimits& limits) const {
  if (timed_out) {
    char text[64];
    std::snprintf(text, sizeof(text), "timed out after %g s", limits.timeout_seconds);
    return text;
  }
  if (signal != 0) {
    return "killed by signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
  }
  return "exit code " + std::to_string(exit_code);
}

StatusOr<std::string> MakeTempDir(const std::string& prefix) {
  const char* base = std::getenv("TMPDIR");
  std::string pattern =
      std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/" + prefix + "-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) {
    return Internal("cannot create a temporary directory " + pattern + ": " + strerror(errno));
  }
  return pattern;
}

void RemoveTree(const std::string& path) {
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
}

StatusOr<ProcessResult> RunSandboxed(const std::vector<std::string>& argv,
                                     const SandboxLimits& limits, const std::string& workdir,
                                     const std::vector<std::string>& extra_env) {
  if (argv.empty()) return InvalidArgument("no program to run");
  struct stat st;
  if (::stat(argv[0].c_str(), &st) != 0) return NotFound("no such program: " + argv[0]);

  std::string dir = workdir;
  bool remove_dir = false;
  if (dir.empty()) {
    ASSIGN_OR_RETURN(dir, MakeTempDir("compiler_gym-run"));
    remove_dir = true;
  }
  struct DirGuard {
    const std::string& path;
    bool active;
    ~DirGuard() {
      if (active) RemoveTree(path);
    }
  } dir_guard{dir, remove_dir};

  // Everything the child needs is prepared here: between vfork and exec it may only make
  // system calls. Every descriptor is close-on-exec so that concurrent spawns on other
  // threads do not inherit each other's pipes.
  int out_pipe[2], err_pipe[2], exec_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) return Internal("pipe: " + std::string(strerror(errno)));
  Fd out_read(out_pipe[0]), out_write(out_pipe[1]);
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) return Internal("pipe: " + std::string(strerror(errno)));
  Fd err_read(err_pipe[0]), err_write(err_pipe[1]);
  if (::pipe2(exec_pipe, O_CLOEXEC) != 0) return Internal("pipe: " + std::string(strerror(errno)));
  Fd exec_read(exec_pipe[0]), exec_write(exec_pipe[1]);
  Fd null_in(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (null_in.fd < 0) return Internal("cannot open /dev/null");

  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // The environment: the caller's, minus the names that extra_env sets, plus extra_env.
  std::vector<char*> envp;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view entry(*e);
    const bool overridden = std::any_of(extra_env.begin(), extra_env.end(), [&](const auto& x) {
      const size_t eq = x.find('=');
      return entry.substr(0, entry.find('=')) == std::string_view(x).substr(0, eq);
    });
    if (!overridden) envp.push_back(*e);
  }
  for (const std::string& e : extra_env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  const rlim_t memory = static_cast<rlim_t>(limits.memory_bytes);
  const char* path = argv[0].c_str();
  const char* cwd = dir.c_str();

  const pid_t parent = ::getpid();
  const auto start = Clock::now();
  const pid_t pid = ::vfork();
  if (pid < 0) return ResourceExhausted("cannot start a process: " + std::string(strerror(errno)));
  if (pid == 0) {
    ::setpgid(0, 0);
    // If this process dies (killed, or crashed in a library), the child must not run on: the
    // thread that spawns it waits for it until it ends, so the spawning thread ends first only
    // when the whole process does. Checking the parent afterwards closes the race with a
    // parent that died before the prctl.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    int failed_errno = 0;
    if (::chdir(cwd) != 0) failed_errno = errno;
    if (failed_errno == 0 && memory > 0) {
      const struct rlimit limit = {memory, memory};
      if (::setrlimit(RLIMIT_AS, &limit) != 0) failed_errno = errno;
    }
    if (failed_errno == 0 &&
        (::dup2(null_in.fd, 0) < 0 || ::dup2(out_pipe[1], 1) < 0 || ::dup2(err_pipe[1], 2) < 0)) {
      failed_errno = errno;
    }
    if (failed_errno == 0) {
      ::execve(path, args.data(), envp.data());
      failed_errno = errno;
    }
    (void)!::write(exec_pipe[1], &failed_errno, sizeof(failed_errno));
    ::_exit(127);
  }
  out_write.Close();
  err_write.Close();
  exec_write.Close();
  int exec_errno = 0;
  if (::read(exec_read.fd, &exec_errno, sizeof(exec_errno)) == sizeof(exec_errno)) {
    ::waitpid(pid, nullptr, 0);
    return Internal("cannot run " + argv[0] + ": " + strerror(exec_errno));
  }

  ProcessResult result;
  const auto deadline = start + std::chrono::duration_cast<Clock::duration>(
                                    std::chrono::duration<double>(limits.timeout_seconds));
  // A pidfd becomes readable when the process exits, which times the run without polling.
  // Kernels without pidfd_open (before 5.3) fall back to checking every millisecond.
  Fd pidfd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
  bool out_open = true, err_open = true, exited = false;
  int status = 0;
  struct rusage usage{};
  auto end = start;
  while (!exited) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) {
      result.timed_out = true;
      break;
    }
    pollfd fds[3];
    int n = 0;
    if (out_open) fds[n++] = {out_read.fd, POLLIN, 0};
    if (err_open) fds[n++] = {err_read.fd, POLLIN, 0};
    if (pidfd.fd >= 0) fds[n++] = {pidfd.fd, POLLIN, 0};
    const int64_t wait_ms = pidfd.fd >= 0 ? left.count() + 1 : 1;
    const int ready = ::poll(fds, n, static_cast<int>(std::min<int64_t>(wait_ms, 1000)));
    if (ready < 0 && errno != EINTR) return Internal("poll: " + std::string(strerror(errno)));
    for (int i = 0; i < n; ++i) {
      if ((fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      if (fds[i].fd == out_read.fd) {
        out_open = Drain(out_read.fd, result.stdout_text, limits.max_output_bytes,
                         result.output_truncated) != ReadState::kEnd;
      } else if (fds[i].fd == err_read.fd) {
        err_open = Drain(err_read.fd, result.stderr_text, limits.max_output_bytes,
                         result.output_truncated) != ReadState::kEnd;
      }
    }
    // Looked at without reaping: until it is reaped, the program's pid (its group's id) cannot
    // be reused, so killing the group below cannot reach an unrelated process.
    siginfo_t info{};
    if (::waitid(P_PID, pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid) {
      end = Clock::now();
      exited = true;
    }
  }
  if (!exited) ::kill(pid, SIGKILL);
  // Whether the program ended or timed out, nothing it started outlives the run: a forked
  // child left in the background is killed with the group.
  ::kill(-pid, SIGKILL);
  while (::wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
  }
  if (!exited) end = Clock::now();
  // Whatever the program wrote before exiting is still in the pipes; a descendant that keeps
  // them open must not block us, so read without waiting.
  for (int fd : {out_read.fd, err_read.fd}) ::fcntl(fd, F_SETFL, O_NONBLOCK);
  while (out_open && Drain(out_read.fd, result.stdout_text, limits.max_output_bytes,
                           result.output_truncated) == ReadState::kData) {
  }
  while (err_open && Drain(err_read.fd, result.stderr_text, limits.max_output_bytes,
                           result.output_truncated) == ReadState::kData) {
  }
  result.wall_seconds = std::chrono::duration<double>(end - start).count();
  result.cpu_seconds = Seconds(usage.ru_utime) + Seconds(usage.ru_stime);
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  if (result.timed_out) result.signal = 0;
  return result;
}

}  // namespace compiler_gym
