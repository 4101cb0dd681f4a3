// Where memory.h's figures come from: /proc/meminfo's MemAvailable, capped by this process's
// cgroup (v2, or v1's memory controller), and the resident size from /proc/self/status.
#include "engine/memory.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace compiler_gym {

namespace {

// A "Name:   123 kB" line of a /proc file, in bytes; -1 if absent.
int64_t ProcKilobytes(const char* path, std::string_view name) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.size() > name.size() && line.compare(0, name.size(), name) == 0 &&
        line[name.size()] == ':') {
      return std::stoll(line.substr(name.size() + 1)) * 1024;
    }
  }
  return -1;
}

// A cgroup v2 file holding one number ("max" for none); -1 if unreadable or unlimited.
int64_t CgroupNumber(const std::string& path) {
  std::ifstream in(path);
  std::string text;
  if (!(in >> text) || text == "max") return -1;
  try {
    return std::stoll(text);
  } catch (...) {
    return -1;
  }
}

// This process's cgroup v2 directory ("0::/path" in /proc/self/cgroup), or "".
std::string CgroupDirectory() {
  std::ifstream in("/proc/self/cgroup");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("0::", 0) == 0) return "/sys/fs/cgroup" + line.substr(3);
  }
  return "";
}

std::string Gib(int64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f GiB", static_cast<double>(bytes) / (1 << 30));
  return text;
}

}  // namespace

int64_t AvailableMemoryBytes() {
  int64_t available = ProcKilobytes("/proc/meminfo", "MemAvailable");
  const auto cap = [&](int64_t limit, int64_t used) {
    if (limit < 0 || used < 0) return;
    const int64_t left = std::max<int64_t>(0, limit - used);
    available = available < 0 ? left : std::min(available, left);
  };
  // cgroup v2 (this process's group), and v1's memory controller as a container sees it (its
  // "no limit" is a number near 2^63, which the minimum ignores).
  const std::string dir = CgroupDirectory();
  if (!dir.empty()) cap(CgroupNumber(dir + "/memory.max"), CgroupNumber(dir + "/memory.current"));
  cap(CgroupNumber("/sys/fs/cgroup/memory/memory.limit_in_bytes"),
      CgroupNumber("/sys/fs/cgroup/memory/memory.usage_in_bytes"));
  return available;
}

int64_t ResidentBytes() { return ProcKilobytes("/proc/self/status", "VmRSS"); }

Status CheckProjectedMemory(int64_t bytes_per_item, int64_t remaining, int64_t available,
                            std::string_view what) {
  if (available < 0 || bytes_per_item <= 0 || remaining <= 0) return Status::Ok();
  // Divided, not multiplied: a count near INT64_MAX must not overflow the projection.
  if (remaining <= available / bytes_per_item) return Status::Ok();
  const double needed = static_cast<double>(bytes_per_item) * static_cast<double>(remaining);
  std::ostringstream message;
  message << remaining << " more " << what << " need about "
          << Gib(static_cast<int64_t>(std::min(needed, 9.0e18))) << " ("
          << (bytes_per_item + 1023) / 1024 << " KiB each) where " << Gib(available)
          << " is available: use fewer";
  return ResourceExhausted(message.str());
}

MemorySample::MemorySample() : resident_(ResidentBytes()), available_(AvailableMemoryBytes()) {}

Status MemorySample::CheckFits(int64_t done, int64_t remaining, std::string_view what) const {
  if (done <= 0) return Status::Ok();
  const int64_t available = AvailableMemoryBytes();
  int64_t grown = 0;
  if (resident_ >= 0) grown = std::max(grown, ResidentBytes() - resident_);
  if (available_ >= 0 && available >= 0) grown = std::max(grown, available_ - available);
  return CheckProjectedMemory(grown / done, remaining, available, what);
}

}  // namespace compiler_gym
