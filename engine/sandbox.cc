// RunSandboxed's mechanics: vfork and exec with everything prepared beforehand, isolation (a
// network namespace and Landlock), timing through a pidfd, the program run under the reaper
// (engine/reaper_main.cc) so that nothing it started outlives it, and temporary working
// directories swept when the process that made them died.
#include "engine/sandbox.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
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
#include <fstream>
#include <mutex>
#include <sstream>
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

// Landlock (Linux 5.13+), by its stable kernel ABI: spelled out here so that the build does
// not depend on how new the machine's kernel headers are.
constexpr int kSysLandlockCreateRuleset = 444;
constexpr int kSysLandlockAddRule = 445;
constexpr int kSysLandlockRestrictSelf = 446;
constexpr uint32_t kLandlockCreateRulesetVersion = 1;
constexpr int kLandlockRulePathBeneath = 1;
struct LandlockRulesetAttr {
  uint64_t handled_access_fs;
  uint64_t handled_access_net;  // ABI 4+
};
struct __attribute__((packed)) LandlockPathBeneathAttr {
  uint64_t allowed_access;
  int32_t parent_fd;
};
// Every way of changing the file system, by the ABI version that introduced it.
uint64_t LandlockWriteAccess(int abi) {
  uint64_t access = 0;
  for (int bit : {1, 4, 5, 6, 7, 8, 9, 10, 11, 12}) access |= uint64_t{1} << bit;  // ABI 1
  if (abi >= 2) access |= uint64_t{1} << 13;                                       // REFER
  if (abi >= 3) access |= uint64_t{1} << 14;                                       // TRUNCATE
  return access;
}
// TCP bind and connect (ABI 4+): the network namespace already has no route out; this also
// holds where a namespace cannot be made.
uint64_t LandlockNetAccess(int abi) { return abi >= 4 ? 0b11 : 0; }

// A Landlock ruleset that allows changes to the file system only beneath `writable` paths, or
// -1 when the kernel has no Landlock.
int MakeWriteRuleset(const std::vector<std::string>& writable) {
  const long abi = ::syscall(kSysLandlockCreateRuleset, nullptr, 0, kLandlockCreateRulesetVersion);
  if (abi < 1) return -1;
  const LandlockRulesetAttr attr{LandlockWriteAccess(static_cast<int>(abi)),
                                 LandlockNetAccess(static_cast<int>(abi))};
  const size_t attr_size = abi >= 4 ? sizeof(attr) : sizeof(attr.handled_access_fs);
  const int ruleset = static_cast<int>(::syscall(kSysLandlockCreateRuleset, &attr, attr_size, 0));
  if (ruleset < 0) return -1;
  for (const std::string& path : writable) {
    Fd parent(::open(path.c_str(), O_PATH | O_CLOEXEC));
    if (parent.fd < 0) continue;
    struct stat st;
    const bool is_dir = ::fstat(parent.fd, &st) == 0 && S_ISDIR(st.st_mode);
    // Rights on a file may only be those that apply to files.
    const uint64_t file_rights = (uint64_t{1} << 1) | (abi >= 3 ? uint64_t{1} << 14 : 0);
    const LandlockPathBeneathAttr rule{
        is_dir ? LandlockWriteAccess(static_cast<int>(abi)) : file_rights, parent.fd};
    if (::syscall(kSysLandlockAddRule, ruleset, kLandlockRulePathBeneath, &rule, 0) != 0) {
      ::close(ruleset);
      return -1;
    }
  }
  return ruleset;
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

namespace {

std::string TempBase() {
  const char* base = std::getenv("TMPDIR");
  return base != nullptr && *base != '\0' ? base : "/tmp";
}

// This process's PID namespace: the inode /proc/self/ns/pid names ("pid:[4026531836]"), or
// "0" where it cannot be read. Read once: a process keeps its namespace.
const std::string& PidNamespace() {
  static const std::string ns = [] {
    std::error_code ec;
    const std::string link = std::filesystem::read_symlink("/proc/self/ns/pid", ec).string();
    const size_t open = link.find('['), close = link.find(']');
    if (ec || open == std::string::npos || close == std::string::npos || close < open) {
      return std::string("0");
    }
    return link.substr(open + 1, close - open - 1);
  }();
  return ns;
}

// The owner's pid in a temporary directory's name ("<prefix>.pid<N>.ns<NS>-XXXXXX") when it
// was made in namespace `ns`, else 0.
pid_t OwnerOf(const std::string& name, const std::string& ns) {
  const size_t at = name.rfind(".pid");
  if (at == std::string::npos) return 0;
  const size_t ns_at = name.find(".ns", at);
  if (ns_at == std::string::npos) return 0;
  const size_t dash = name.find('-', ns_at);
  if (dash == std::string::npos || name.compare(ns_at + 3, dash - ns_at - 3, ns) != 0) {
    return 0;
  }
  return static_cast<pid_t>(std::atol(name.c_str() + at + 4));
}

// Removes the directories MakeTempDir made in `base` for processes of this PID namespace that
// are gone (killed or crashed before removing them). A directory's name says which process
// made it, and in which namespace: a pid is only looked up where it means the same process
// (containers that share a /tmp see each other's directories, not their processes).
void SweepDeadOwners(const std::string& base) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(base, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("compiler_gym-", 0) != 0) continue;
    const pid_t owner = OwnerOf(name, PidNamespace());
    if (owner > 0 && ::kill(owner, 0) != 0 && errno == ESRCH) RemoveTree(entry.path());
  }
}

}  // namespace

StatusOr<std::string> MakeTempDir(const std::string& prefix) {
  static std::once_flag once;
  std::call_once(once, [] { SweepDeadOwners(TempBase()); });
  std::string pattern = TempBase() + "/" + prefix + ".pid" + std::to_string(::getpid()) + ".ns" +
                        PidNamespace() + "-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) {
    return Internal("cannot create a temporary directory " + pattern + ": " + strerror(errno));
  }
  return pattern;
}

void RemoveTree(const std::string& path) {
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
}

StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("no file " + path);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

Status WriteFile(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
  out.close();
  if (!out) return ResourceExhausted("cannot write " + path);
  return Status::Ok();
}

namespace {
StatusOr<ProcessResult> Run(const std::vector<std::string>& argv, const SandboxLimits& limits,
                            const std::string& workdir, const std::vector<std::string>& extra_env);
}  // namespace

std::string IsolationStatus() {
  static const std::string status = [] {
    std::vector<std::string> missing;
    if (::syscall(kSysLandlockCreateRuleset, nullptr, 0, kLandlockCreateRulesetVersion) < 1) {
      missing.push_back("file system (the kernel has no Landlock)");
    }
    // An isolated program sees a network namespace of its own.
    char own[128] = {0};
    (void)!::readlink("/proc/self/ns/net", own, sizeof(own) - 1);
    auto probe = Run({"/bin/sh", "-c", "readlink /proc/self/ns/net"},
                     {.timeout_seconds = 30, .isolated = true}, "", {});
    if (!probe.ok() || !probe->ok() || probe->stdout_text.find(own) != std::string::npos) {
      missing.push_back("network (no network namespace may be made)");
    }
    if (missing.empty()) return std::string("network, file system");
    std::string text = "missing:";
    for (const std::string& m : missing) text += " " + m + ";";
    return text;
  }();
  return status;
}

StatusOr<ProcessResult> RunSandboxed(const std::vector<std::string>& argv,
                                     const SandboxLimits& limits, const std::string& workdir,
                                     const std::vector<std::string>& extra_env) {
  if (limits.isolated) {
    static std::once_flag warned;
    std::call_once(warned, [] {
      const std::string status = IsolationStatus();
      if (status.rfind("missing:", 0) == 0) {
        std::fprintf(stderr, "compiler_gym: programs run with partial isolation, %s\n",
                     status.c_str());
      }
    });
  }
  return Run(argv, limits, workdir, extra_env);
}

namespace {

// The program's argv for execve: pointers into `argv`, then a null.
std::vector<char*> ProgramArguments(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  return args;
}

// The environment: the caller's, minus the names that extra_env sets, plus extra_env.
std::vector<char*> ProgramEnvironment(const std::vector<std::string>& extra_env) {
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
  return envp;
}

// The program's RLIMIT_AS as the reaper's AS_LIMIT argument: bytes, "inf", or "-" for none to
// set.
std::string ProgramMemoryLimit(const SandboxLimits& limits) {
  if (limits.memory_bytes > 0) return std::to_string(limits.memory_bytes);
  // A soft limit of this process (a worker's, engine/worker.h) is not the program's: without a
  // limit of its own, the program gets the hard one (AddressSanitizer reserves terabytes).
  struct rlimit inherited{};
  ::getrlimit(RLIMIT_AS, &inherited);
  if (inherited.rlim_cur == inherited.rlim_max) return "-";
  return inherited.rlim_max == RLIM_INFINITY ? "inf" : std::to_string(inherited.rlim_max);
}

// The reaper executable (compiler_gym-reaper): beside the binary that holds this code (the
// Python module and the worker lie in one folder, build tree and install alike), else where
// this build put it (the C++ tests).
const std::string& ReaperPath() {
  static const std::string path = [] {
    Dl_info info{};
    if (::dladdr(reinterpret_cast<void*>(&ProgramMemoryLimit), &info) != 0 &&
        info.dli_fname != nullptr) {
      const std::string beside =
          std::filesystem::path(info.dli_fname).parent_path() / "compiler_gym-reaper";
      if (::access(beside.c_str(), X_OK) == 0) return beside;
    }
#ifdef CG_REAPER_BUILD_PATH
    if (::access(CG_REAPER_BUILD_PATH, X_OK) == 0) return std::string(CG_REAPER_BUILD_PATH);
#endif
    return std::string();
  }();
  return path;
}

// Everything the child uses between vfork and exec, prepared by the parent beforehand: there
// the child shares the parent's memory and may only make system calls.
struct ChildSetup {
  pid_t parent;  // the child does not outlive it
  bool isolate;
  int ruleset;  // Landlock's, or -1
  const char* cwd;
  int stdin_fd, stdout_fd, stderr_fd;
  int exec_error_fd;  // where the child writes errno when it cannot run the program
  const char* path;
  char* const* args;
  char* const* envp;
};

// The child's side of the vfork, which never returns: system calls only, no allocation.
[[noreturn]] void RunChild(const ChildSetup& setup) {
  ::setpgid(0, 0);
  // If this process dies (killed, or crashed in a library), the child must not run on: the
  // thread that spawns it waits for it until it ends, so the spawning thread ends first only
  // when the whole process does. Checking the parent afterwards closes the race with a
  // parent that died before the prctl.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != setup.parent) ::_exit(127);
  int failed_errno = 0;
  if (setup.isolate) {
    // Without privileges to make a namespace, Landlock's TCP rules still stand.
    (void)::unshare(CLONE_NEWNET);
    if (setup.ruleset >= 0 && (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
                               ::syscall(kSysLandlockRestrictSelf, setup.ruleset, 0) != 0)) {
      failed_errno = errno;
    }
  }
  if (failed_errno == 0 && ::chdir(setup.cwd) != 0) failed_errno = errno;
  // The reaper reports the program's exec through this descriptor: it must survive this exec.
  if (failed_errno == 0 && ::fcntl(setup.exec_error_fd, F_SETFD, 0) != 0) failed_errno = errno;
  if (failed_errno == 0 && (::dup2(setup.stdin_fd, 0) < 0 || ::dup2(setup.stdout_fd, 1) < 0 ||
                            ::dup2(setup.stderr_fd, 2) < 0)) {
    failed_errno = errno;
  }
  if (failed_errno == 0) {
    ::execve(setup.path, setup.args, setup.envp);
    failed_errno = errno;
  }
  (void)!::write(setup.exec_error_fd, &failed_errno, sizeof(failed_errno));
  ::_exit(127);
}

// What the parent knows of a running program: its output pipes, which of them are still open,
// and whether (and when) it exited.
struct Watch {
  int out_fd, err_fd;
  bool out_open = true, err_open = true, exited = false;
  Clock::time_point end;
};

// Reads the program's output until it exits or `deadline` passes (result.timed_out), without
// reaping it. An error only when poll fails.
Status WatchUntilExit(pid_t pid, int pidfd, Clock::time_point deadline, const SandboxLimits& limits,
                      Watch& watch, ProcessResult& result) {
  while (!watch.exited) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) {
      result.timed_out = true;
      break;
    }
    pollfd fds[3];
    int n = 0;
    if (watch.out_open) fds[n++] = {watch.out_fd, POLLIN, 0};
    if (watch.err_open) fds[n++] = {watch.err_fd, POLLIN, 0};
    if (pidfd >= 0) fds[n++] = {pidfd, POLLIN, 0};
    const int64_t wait_ms = pidfd >= 0 ? left.count() + 1 : 1;
    const int ready = ::poll(fds, n, static_cast<int>(std::min<int64_t>(wait_ms, 1000)));
    if (ready < 0 && errno != EINTR) return Internal("poll: " + std::string(strerror(errno)));
    for (int i = 0; i < n; ++i) {
      if ((fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      if (fds[i].fd == watch.out_fd) {
        watch.out_open = Drain(watch.out_fd, result.stdout_text, limits.max_output_bytes,
                               result.output_truncated) != ReadState::kEnd;
      } else if (fds[i].fd == watch.err_fd) {
        watch.err_open = Drain(watch.err_fd, result.stderr_text, limits.max_output_bytes,
                               result.output_truncated) != ReadState::kEnd;
      }
    }
    // Looked at without reaping: until it is reaped, the program's pid (its group's id) cannot
    // be reused, so killing the group below cannot reach an unrelated process.
    siginfo_t info{};
    if (::waitid(P_PID, pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid) {
      watch.end = Clock::now();
      watch.exited = true;
    }
  }
  return Status::Ok();
}

// Kills the program's process group, reaps the program, reads what is left in its pipes and
// records how it ended.
void Finish(pid_t pid, Clock::time_point start, const SandboxLimits& limits, Watch& watch,
            ProcessResult& result) {
  int status = 0;
  struct rusage usage{};
  if (!watch.exited) {
    // Timed out: the reaper kills the program and then everything it started, wherever it
    // went (a new session too); it gets a moment for that before the group is killed.
    ::kill(pid, SIGTERM);
    siginfo_t info{};
    const auto grace_end = Clock::now() + std::chrono::seconds(2);
    while (Clock::now() < grace_end) {
      info.si_pid = 0;
      if (::waitid(P_PID, pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid) {
        break;
      }
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  }
  // Whatever is left in the group (a reaper that did not answer) goes with it. The reaper is
  // not reaped yet, so its pid, the group's id, cannot have been reused.
  ::kill(-pid, SIGKILL);
  while (::wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
  }
  if (!watch.exited) watch.end = Clock::now();
  // Whatever the program wrote before exiting is still in the pipes; a descendant that keeps
  // them open must not block us, so read without waiting.
  for (int fd : {watch.out_fd, watch.err_fd}) ::fcntl(fd, F_SETFL, O_NONBLOCK);
  while (watch.out_open && Drain(watch.out_fd, result.stdout_text, limits.max_output_bytes,
                                 result.output_truncated) == ReadState::kData) {
  }
  while (watch.err_open && Drain(watch.err_fd, result.stderr_text, limits.max_output_bytes,
                                 result.output_truncated) == ReadState::kData) {
  }
  result.wall_seconds = std::chrono::duration<double>(watch.end - start).count();
  result.cpu_seconds = Seconds(usage.ru_utime) + Seconds(usage.ru_stime);
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  if (result.timed_out) result.signal = 0;
}

StatusOr<ProcessResult> Run(const std::vector<std::string>& argv, const SandboxLimits& limits,
                            const std::string& workdir, const std::vector<std::string>& extra_env) {
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

  // The reaper runs the program as its child: REPORT_FD PARENT_PID AS_LIMIT PROGRAM ARGS...
  const std::string& reaper = ReaperPath();
  if (reaper.empty()) {
    return FailedPrecondition(
        "compiler_gym-reaper is missing (it belongs beside the compiler_gym module): programs "
        "are not run without it");
  }
  std::vector<std::string> reaper_argv = {reaper, std::to_string(exec_pipe[1]),
                                          std::to_string(::getpid()), ProgramMemoryLimit(limits)};
  reaper_argv.insert(reaper_argv.end(), argv.begin(), argv.end());
  const std::vector<char*> args = ProgramArguments(reaper_argv);
  const std::vector<char*> envp = ProgramEnvironment(extra_env);

  // Isolation: no network (a network namespace of its own) and no writes outside the working
  // directory (Landlock), both set up in the child before it runs the program.
  Fd ruleset;
  if (limits.isolated) ruleset.fd = MakeWriteRuleset({dir, "/dev/null", "/dev/zero", "/dev/tty"});
  const ChildSetup setup{.parent = ::getpid(),
                         .isolate = limits.isolated,
                         .ruleset = ruleset.fd,
                         .cwd = dir.c_str(),
                         .stdin_fd = null_in.fd,
                         .stdout_fd = out_pipe[1],
                         .stderr_fd = err_pipe[1],
                         .exec_error_fd = exec_pipe[1],
                         .path = reaper.c_str(),
                         .args = args.data(),
                         .envp = envp.data()};
  auto start = Clock::now();
  const pid_t pid = ::vfork();
  if (pid < 0) return ResourceExhausted("cannot start a process: " + std::string(strerror(errno)));
  if (pid == 0) RunChild(setup);
  out_write.Close();
  err_write.Close();
  exec_write.Close();
  ruleset.Close();
  int exec_errno = 0;
  if (::read(exec_read.fd, &exec_errno, sizeof(exec_errno)) == sizeof(exec_errno)) {
    ::waitpid(pid, nullptr, 0);
    return Internal("cannot run " + argv[0] + ": " + strerror(exec_errno));
  }
  // The program runs from here (its exec closed the pipe): setting up the process, and the
  // isolation, is not part of its time.
  start = Clock::now();

  ProcessResult result;
  const auto deadline = start + std::chrono::duration_cast<Clock::duration>(
                                    std::chrono::duration<double>(limits.timeout_seconds));
  // A pidfd becomes readable when the process exits, which times the run without polling.
  // Kernels without pidfd_open (before 5.3) fall back to checking every millisecond.
  Fd pidfd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
  Watch watch{.out_fd = out_read.fd, .err_fd = err_read.fd, .end = start};
  RETURN_IF_ERROR(WatchUntilExit(pid, pidfd.fd, deadline, limits, watch, result));
  Finish(pid, start, limits, watch, result);
  return result;
}

}  // namespace

}  // namespace compiler_gym
