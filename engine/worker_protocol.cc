// The worker protocol's serialization and transport: benchmarks, observations and outcomes as
// bytes, frames sent and read with descriptors (SCM_RIGHTS) and deadlines, and the memfd that
// observations come back through.
#include "engine/worker_protocol.h"

#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <string_view>
#include <variant>

namespace compiler_gym::worker {

rlimit AddressLimit(int64_t mb) {
  return rlimit{mb > 0 ? static_cast<rlim_t>(mb) << 20 : RLIM_INFINITY, RLIM_INFINITY};
}

std::string Errno(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

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

namespace {

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

}  // namespace

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

bool SendAll(int fd, const char* data, size_t size, const std::vector<int>& fds) {
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

bool SendFrame(int fd, const std::string& body, const std::vector<int>& fds) {
  std::string frame;
  frame.reserve(sizeof(uint64_t) + body.size());
  const uint64_t size = body.size();
  frame.append(reinterpret_cast<const char*>(&size), sizeof size);
  frame.append(body);
  return SendAll(fd, frame.data(), frame.size(), fds);
}

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
                     std::vector<int>* fds) {
  uint64_t size = 0;
  ReadResult result = ReadAll(fd, reinterpret_cast<char*>(&size), sizeof size, deadline, fds);
  if (result != ReadResult::kOk) return result;
  body->resize(size);
  return ReadAll(fd, body->data(), size, deadline, fds);
}

StatusOr<Fd> NewSharedFd() {
  const int fd = ::memfd_create("compiler_gym-observations", MFD_CLOEXEC);
  if (fd < 0) return Internal(Errno("memfd_create"));
  return Fd(fd);
}

std::string SignalName(int sig) {
  const char* name = ::strsignal(sig);
  return std::to_string(sig) + (name ? std::string(" (") + name + ")" : "");
}

}  // namespace compiler_gym::worker
