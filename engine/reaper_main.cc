// compiler_gym-reaper: the process between RunSandboxed (engine/sandbox.h) and the program it
// runs. It is the program's parent and a child subreaper (PR_SET_CHILD_SUBREAPER), so every
// descendant that leaves the program's process group or session (setsid(), a double fork)
// is re-parented to it rather than to init; once the program has ended, it kills and reaps
// all of them before it exits. Killing a process group alone misses those.
//
//   compiler_gym-reaper REPORT_FD PARENT_PID AS_LIMIT PROGRAM [ARGS...]
//
// REPORT_FD: where the program's exec error (an errno) is written; closed on a good exec.
// PARENT_PID: the spawning process; the reaper gives up if it is no longer its parent.
// AS_LIMIT: the program's RLIMIT_AS in bytes, "inf", or "-" to leave the inherited one.
// SIGTERM (the caller's time-out) or the parent's death: the program is killed, then the rest.
// The exit status is the program's: its exit code, or the signal that ended it, raised again.
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

constexpr int kMaxChildren = 4096;  // per sweep round; a later round gets the rest

// Parses a non-negative decimal number at `text`; -1 if there is none.
int64_t ParseNumber(const char* text, const char** end = nullptr) {
  int64_t value = -1;
  for (; *text >= '0' && *text <= '9'; ++text) value = (value < 0 ? 0 : value * 10) + *text - '0';
  if (end != nullptr) *end = text;
  return value;
}

// This process's children, from /proc/self/task/<tid>/children; where the kernel has no such
// file (CONFIG_PROC_CHILDREN), from every /proc/<pid>/stat whose parent is this process.
int ListChildren(pid_t* out, int capacity) {
  char path[64];
  snprintf(path, sizeof(path), "/proc/self/task/%ld/children", static_cast<long>(::getpid()));
  int count = 0;
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    char buffer[16384];
    int64_t current = -1;
    ssize_t n;
    while ((n = ::read(fd, buffer, sizeof(buffer))) > 0) {
      for (ssize_t i = 0; i < n; ++i) {
        if (buffer[i] >= '0' && buffer[i] <= '9') {
          current = (current < 0 ? 0 : current * 10) + buffer[i] - '0';
        } else if (current >= 0) {
          if (count < capacity) out[count++] = static_cast<pid_t>(current);
          current = -1;
        }
      }
    }
    if (current >= 0 && count < capacity) out[count++] = static_cast<pid_t>(current);
    ::close(fd);
    return count;
  }
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return 0;
  const pid_t self = ::getpid();
  while (const dirent* entry = ::readdir(proc)) {
    const char* end = nullptr;
    const int64_t pid = ParseNumber(entry->d_name, &end);
    if (pid <= 0 || *end != '\0') continue;
    snprintf(path, sizeof(path), "/proc/%ld/stat", static_cast<long>(pid));
    const int stat_fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (stat_fd < 0) continue;
    char stat[512];
    const ssize_t n = ::read(stat_fd, stat, sizeof(stat) - 1);
    ::close(stat_fd);
    if (n <= 0) continue;
    stat[n] = '\0';
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so find the last ')'.
    const char* close_paren = strrchr(stat, ')');
    if (close_paren == nullptr || close_paren[1] == '\0' || close_paren[2] == '\0') continue;
    const char* ppid_text = close_paren + 2;
    while (*ppid_text != '\0' && *ppid_text != ' ') ++ppid_text;  // the state letter
    if (*ppid_text == ' ' && ParseNumber(ppid_text + 1) == self && count < capacity) {
      out[count++] = static_cast<pid_t>(pid);
    }
  }
  ::closedir(proc);
  return count;
}

// Kills and reaps every child until none is left. A killed child's own children come to this
// process (it is their subreaper), so each round finds the next generation.
void Sweep() {
  static pid_t children[kMaxChildren];
  for (;;) {
    const int n = ListChildren(children, kMaxChildren);
    for (int i = 0; i < n; ++i) ::kill(children[i], SIGKILL);
    // With none listed, only zombies can be left: reap without waiting.
    const pid_t reaped = ::waitpid(-1, nullptr, n > 0 ? 0 : WNOHANG);
    if (reaped < 0 && errno == EINTR) continue;
    if (reaped < 0 || (reaped == 0 && n == 0)) return;  // ECHILD: nothing left
  }
}

[[noreturn]] void ExitLike(int status) {
  if (WIFEXITED(status)) ::_exit(WEXITSTATUS(status));
  const int sig = WIFSIGNALED(status) ? WTERMSIG(status) : SIGKILL;
  // Die of the program's signal, so the caller sees how it ended; no core file of ours.
  const rlimit no_core{0, 0};
  ::setrlimit(RLIMIT_CORE, &no_core);
  ::signal(sig, SIG_DFL);
  sigset_t only;
  sigemptyset(&only);
  sigaddset(&only, sig);
  ::sigprocmask(SIG_UNBLOCK, &only, nullptr);
  ::kill(::getpid(), sig);
  ::_exit(128 + sig);  // a signal whose default is not to terminate
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    static const char kUsage[] =
        "usage: compiler_gym-reaper REPORT_FD PARENT_PID AS_LIMIT PROGRAM...\n";
    (void)!::write(2, kUsage, sizeof(kUsage) - 1);
    return 127;
  }
  const int report_fd = static_cast<int>(ParseNumber(argv[1]));
  const int64_t parent = ParseNumber(argv[2]);
  const bool set_limit = strcmp(argv[3], "-") != 0;
  const rlim_t as_limit =
      strcmp(argv[3], "inf") == 0 ? RLIM_INFINITY : static_cast<rlim_t>(ParseNumber(argv[3]));
  if (report_fd < 0 || parent <= 0 ||
      (set_limit && as_limit == static_cast<rlim_t>(-1) && strcmp(argv[3], "inf") != 0)) {
    return 127;
  }
  ::fcntl(report_fd, F_SETFD, FD_CLOEXEC);  // the program's good exec closes it

  // Signals are taken synchronously (sigwaitinfo): no handler runs between the calls below.
  sigset_t watched, original;
  sigemptyset(&watched);
  sigaddset(&watched, SIGCHLD);
  sigaddset(&watched, SIGTERM);
  sigaddset(&watched, SIGHUP);
  sigaddset(&watched, SIGINT);
  ::sigprocmask(SIG_BLOCK, &watched, &original);
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);  // the caller died: clean up rather than die at once
  if (::getppid() != static_cast<pid_t>(parent)) return 127;

  const pid_t reaper = ::getpid();
  const pid_t program = ::fork();
  if (program < 0) {
    const int error = errno;
    (void)!::write(report_fd, &error, sizeof(error));
    return 127;
  }
  if (program == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // the reaper killed: nothing to wait for
    if (::getppid() != reaper) ::_exit(127);
    ::sigprocmask(SIG_SETMASK, &original, nullptr);
    int error = 0;
    if (set_limit) {
      const rlimit limit{as_limit, as_limit};
      if (::setrlimit(RLIMIT_AS, &limit) != 0) error = errno;
    }
    if (error == 0) {
      ::execv(argv[4], argv + 4);
      error = errno;
    }
    (void)!::write(report_fd, &error, sizeof(error));
    ::_exit(127);
  }
  ::close(report_fd);

  int status = 0;
  for (bool ended = false; !ended;) {
    siginfo_t info{};
    if (::sigwaitinfo(&watched, &info) < 0) continue;
    if (info.si_signo != SIGCHLD) ::kill(program, SIGKILL);  // a time-out, or the caller died
    // Reap whatever has ended, the program or an orphan re-parented here while it runs.
    int child_status = 0;
    pid_t reaped;
    while ((reaped = ::waitpid(-1, &child_status, WNOHANG)) > 0) {
      if (reaped == program) {
        status = child_status;
        ended = true;
      }
    }
  }
  Sweep();
  ExitLike(status);
}
