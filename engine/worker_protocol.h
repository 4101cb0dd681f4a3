// The worker protocol, shared by the env's side (remote_env.cc) and the worker's
// (worker_main.cc): byte writers and readers, the requests, frames over a Unix socket with
// descriptors riding along, and the shared memory region observations come back through.
// Internal to the engine: engine/worker.h is the interface.
#pragma once

#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "engine/env.h"
#include "engine/status.h"

namespace compiler_gym::worker {

// The soft limit only: programs the worker runs (engine/sandbox.h) may raise theirs back.
rlimit AddressLimit(int64_t mb);

// Descriptors a worker finds at startup.
constexpr int kWorkerSocketFd = 3;
constexpr int kWorkerSharedFd = 4;

// `what` and the system's words for errno.
std::string Errno(const char* what);

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

void WriteBenchmark(Writer& w, const Benchmark& b);

bool ReadBenchmark(Reader& r, Benchmark* b);

void WriteObservation(Writer& w, const Observation& value);

bool ReadObservation(Reader& r, Observation* out);

void WriteOutcome(Writer& w, const StepOutcome& o);

bool ReadOutcome(Reader& r, StepOutcome* o);

// --- framing --------------------------------------------------------------------------------
// A frame is its length (uint64) and its bytes. Descriptors ride along with a frame's first
// byte (SCM_RIGHTS).

bool SendAll(int fd, const char* data, size_t size, const std::vector<int>& fds = {});

bool SendFrame(int fd, const std::string& body, const std::vector<int>& fds = {});

enum class ReadResult { kOk, kClosed, kTimeout };

// Reads exactly `size` bytes, waiting at most until `deadline` (none when unset). Descriptors
// that arrive are appended to `fds` (the caller owns them).
ReadResult ReadAll(int fd, char* data, size_t size,
                   std::optional<std::chrono::steady_clock::time_point> deadline,
                   std::vector<int>* fds);

ReadResult ReadFrame(int fd, std::string* body,
                     std::optional<std::chrono::steady_clock::time_point> deadline,
                     std::vector<int>* fds = nullptr);

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

StatusOr<Fd> NewSharedFd();

std::string SignalName(int sig);

}  // namespace compiler_gym::worker
