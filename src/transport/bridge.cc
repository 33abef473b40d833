#include "transport/bridge.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "transport/tcp.h"

namespace qeli::transport {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t kMaxSplice = 1 << 16;

// Tags in epoll_data: the Conn pointer with the low bit saying which side (Conn is at
// least 8-byte aligned).
std::uint64_t tag(const void* c, bool target) {
  return reinterpret_cast<std::uintptr_t>(c) | (target ? 1U : 0U);
}

void set_nodelay(int fd) {
  int one = 1;
  (void)::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

}  // namespace

const char* to_string(BridgeEnd e) {
  switch (e) {
    case BridgeEnd::kEof: return "closed by both sides";
    case BridgeEnd::kIdle: return "idle";
    case BridgeEnd::kLifetime: return "lifetime reached";
    case BridgeEnd::kError: return "reset or socket error";
    case BridgeEnd::kConnectFailed: return "target unreachable";
    case BridgeEnd::kStopped: return "stopped";
  }
  return "?";
}

// One bridge. Direction "up" = client → target, "down" = target → client.
struct alignas(8) Bridge::Conn {
  UniqueFd client, target;
  UniqueFd up_r, up_w, down_r, down_w;  // the two pipes
  std::size_t up_pending = 0, down_pending = 0, pipe_cap = kMaxSplice;
  Bytes prefix;
  std::size_t prefix_at = 0;
  bool connecting = true;
  bool client_eof = false, target_eof = false;
  bool up_shut = false, down_shut = false;
  bool dead = false;
  Instant started{}, last_io{}, connect_deadline{};
  std::uint32_t ev_client = 0, ev_target = 0;
};

Bridge::Bridge(HostPort target, BridgeLimits limits, std::function<void(BridgeEnd)> on_end)
    : target_(std::move(target)), limits_(limits), on_end_(std::move(on_end)) {}

Bridge::~Bridge() { stop(); }

Status<std::string> Bridge::start() {
  if (auto st = inbox_.open(); !st.ok()) return fail("bridge: " + st.error());
  // A first resolution before any stranger arrives (a literal address needs no DNS).
  const auto literal = SockAddr::parse_ip(target_.host, target_.port);
  if (literal) {
    endpoint_ = *literal;
  } else if (auto r = resolve(target_, Families::kIpv4First); r.ok() && !r->empty()) {
    endpoint_ = r->front();
  }
  stop_ = false;
  thread_ = std::thread([this] { run(); });
  if (!literal) resolver_ = std::thread([this] { resolve_loop(); });
  return {};
}

void Bridge::stop() {
  if (!thread_.joinable()) return;
  stop_ = true;
  {
    std::lock_guard lock(resolve_mu_);
    resolve_cv_.notify_all();
  }
  inbox_.wake();
  thread_.join();
  if (resolver_.joinable()) resolver_.join();
}

void Bridge::resolve_loop() {
  std::unique_lock lock(resolve_mu_);
  while (!stop_) {
    const bool have = target_endpoint().has_value();
    resolve_cv_.wait_for(lock, have ? std::chrono::minutes(5) : std::chrono::seconds(10));
    if (stop_) break;
    if (auto r = resolve(target_, Families::kIpv4First); r.ok() && !r->empty()) {
      std::lock_guard q(mu_);
      endpoint_ = r->front();
    }
  }
}

std::optional<SockAddr> Bridge::target_endpoint() {
  std::lock_guard lock(mu_);
  return endpoint_;
}

bool Bridge::add(UniqueFd client, Bytes prefix) {
  std::size_t n = active_.load();
  do {
    if (n >= limits_.max_bridges) return false;
  } while (!active_.compare_exchange_weak(n, n + 1));
  inbox_.post({std::move(client), std::move(prefix)});
  return true;
}

void Bridge::begin(std::unique_ptr<Conn> c, Instant now) {
  c->started = c->last_io = now;
  c->connect_deadline = now + limits_.connect_timeout;
  Conn& r = *c;
  conns_.push_back(std::move(c));
  int up[2], down[2];
  if (::pipe2(up, O_CLOEXEC | O_NONBLOCK) != 0) return end(r, BridgeEnd::kError);
  r.up_r = UniqueFd(up[0]);
  r.up_w = UniqueFd(up[1]);
  if (::pipe2(down, O_CLOEXEC | O_NONBLOCK) != 0) return end(r, BridgeEnd::kError);
  r.down_r = UniqueFd(down[0]);
  r.down_w = UniqueFd(down[1]);
  if (const int cap = ::fcntl(r.up_w.get(), F_GETPIPE_SZ); cap > 0) {
    r.pipe_cap = static_cast<std::size_t>(cap);
  }
  const auto ep = target_endpoint();
  if (!ep) return end(r, BridgeEnd::kConnectFailed);
  r.target = UniqueFd(::socket(ep->family(), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!r.target.valid()) return end(r, BridgeEnd::kError);
  set_nonblocking(r.client.get(), true);
  set_nodelay(r.client.get());
  set_nodelay(r.target.get());
  if (::connect(r.target.get(), &ep->sa, ep->len) != 0 && errno != EINPROGRESS) {
    return end(r, BridgeEnd::kConnectFailed);
  }
  epoll_event ev{};
  ev.data.u64 = tag(&r, false);
  ev.events = 0;
  if (::epoll_ctl(inbox_.epoll_fd(), EPOLL_CTL_ADD, r.client.get(), &ev) != 0) {
    return end(r, BridgeEnd::kError);
  }
  ev.data.u64 = tag(&r, true);
  ev.events = EPOLLOUT;  // writable = connected (or failed)
  if (::epoll_ctl(inbox_.epoll_fd(), EPOLL_CTL_ADD, r.target.get(), &ev) != 0) {
    return end(r, BridgeEnd::kError);
  }
  r.ev_target = EPOLLOUT;
}

void Bridge::end(Conn& c, BridgeEnd why) {
  if (c.dead) return;
  c.dead = true;
  // Closing the fds removes them from the epoll set.
  c.client.reset();
  c.target.reset();
  c.up_r.reset();
  c.up_w.reset();
  c.down_r.reset();
  c.down_w.reset();
  active_.fetch_sub(1);
  if (on_end_) on_end_(why);
}

void Bridge::update_interest(Conn& c) {
  if (c.dead || c.connecting) return;
  const bool prefix_left = c.prefix_at < c.prefix.size();
  std::uint32_t want_c = 0, want_t = 0;
  if (!c.client_eof && !prefix_left && c.up_pending < c.pipe_cap) want_c |= EPOLLIN;
  if (c.down_pending > 0) want_c |= EPOLLOUT;
  if (!c.target_eof && c.down_pending < c.pipe_cap) want_t |= EPOLLIN;
  if (c.up_pending > 0 || prefix_left) want_t |= EPOLLOUT;
  epoll_event ev{};
  if (want_c != c.ev_client) {
    ev.events = want_c;
    ev.data.u64 = tag(&c, false);
    (void)::epoll_ctl(inbox_.epoll_fd(), EPOLL_CTL_MOD, c.client.get(), &ev);
    c.ev_client = want_c;
  }
  if (want_t != c.ev_target) {
    ev.events = want_t;
    ev.data.u64 = tag(&c, true);
    (void)::epoll_ctl(inbox_.epoll_fd(), EPOLL_CTL_MOD, c.target.get(), &ev);
    c.ev_target = want_t;
  }
}

namespace {

enum class Move { kProgress, kBlocked, kEof, kError };

// splice from a socket into a pipe (kEof: the socket's peer sent FIN).
Move fill(int from, int pipe_w, std::size_t room, std::size_t& pending) {
  if (room == 0) return Move::kBlocked;
  const ssize_t n = ::splice(from, nullptr, pipe_w, nullptr, std::min(room, kMaxSplice),
                             SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
  if (n > 0) {
    pending += static_cast<std::size_t>(n);
    return Move::kProgress;
  }
  if (n == 0) return Move::kEof;
  return errno == EAGAIN || errno == EINTR ? Move::kBlocked : Move::kError;
}

// splice from a pipe into a socket.
Move drain(int pipe_r, int to, std::size_t& pending) {
  if (pending == 0) return Move::kBlocked;
  const ssize_t n =
      ::splice(pipe_r, nullptr, to, nullptr, pending, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
  if (n > 0) {
    pending -= static_cast<std::size_t>(n);
    return Move::kProgress;
  }
  return n < 0 && (errno == EAGAIN || errno == EINTR) ? Move::kBlocked : Move::kError;
}

}  // namespace

void Bridge::pump(Conn& c) {
  if (c.dead) return;
  if (c.connecting) {
    int err = 0;
    socklen_t len = sizeof err;
    if (::getsockopt(c.target.get(), SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0) {
      return end(c, BridgeEnd::kConnectFailed);
    }
    c.connecting = false;
  }
  bool progress = true;
  while (progress && !c.dead) {
    progress = false;
    // The bytes the gate read go to the target first.
    while (c.prefix_at < c.prefix.size()) {
      const ssize_t n = ::send(c.target.get(), c.prefix.data() + c.prefix_at,
                               c.prefix.size() - c.prefix_at, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n > 0) {
        c.prefix_at += static_cast<std::size_t>(n);
        progress = true;
        continue;
      }
      if (n < 0 && (errno == EAGAIN || errno == EINTR)) break;
      return end(c, BridgeEnd::kError);
    }
    if (c.prefix_at < c.prefix.size()) break;
    if (!c.prefix.empty()) {
      Bytes().swap(c.prefix);
      c.prefix_at = 0;
    }
    // Up: client → pipe → target.
    if (!c.client_eof) {
      switch (fill(c.client.get(), c.up_w.get(), c.pipe_cap - c.up_pending, c.up_pending)) {
        case Move::kProgress: progress = true; break;
        case Move::kEof: c.client_eof = true; break;
        case Move::kError: return end(c, BridgeEnd::kError);
        case Move::kBlocked: break;
      }
    }
    switch (drain(c.up_r.get(), c.target.get(), c.up_pending)) {
      case Move::kProgress: progress = true; break;
      case Move::kError: return end(c, BridgeEnd::kError);
      default: break;
    }
    // Down: target → pipe → client.
    if (!c.target_eof) {
      switch (fill(c.target.get(), c.down_w.get(), c.pipe_cap - c.down_pending, c.down_pending)) {
        case Move::kProgress: progress = true; break;
        case Move::kEof: c.target_eof = true; break;
        case Move::kError: return end(c, BridgeEnd::kError);
        case Move::kBlocked: break;
      }
    }
    switch (drain(c.down_r.get(), c.client.get(), c.down_pending)) {
      case Move::kProgress: progress = true; break;
      case Move::kError: return end(c, BridgeEnd::kError);
      default: break;
    }
    if (progress) c.last_io = Clock::now();
  }
  // A direction whose source sent FIN and whose pipe is empty: pass the half-close on.
  if (c.client_eof && c.up_pending == 0 && !c.up_shut) {
    (void)::shutdown(c.target.get(), SHUT_WR);
    c.up_shut = true;
  }
  if (c.target_eof && c.down_pending == 0 && !c.down_shut) {
    (void)::shutdown(c.client.get(), SHUT_WR);
    c.down_shut = true;
  }
  if (c.up_shut && c.down_shut) return end(c, BridgeEnd::kEof);
  update_interest(c);
}

void Bridge::run() {
  std::vector<epoll_event> events(128);
  while (!stop_) {
    Instant now = Clock::now();
    const bool ok = inbox_.wait(
        events, 250,
        [&](std::uint64_t tag) {
          pump(*reinterpret_cast<Conn*>(static_cast<std::uintptr_t>(tag & ~std::uint64_t{1})));
        },
        [&](std::vector<std::pair<UniqueFd, Bytes>> q) {
          now = Clock::now();
          for (auto& [fd, prefix] : q) {
            auto c = std::make_unique<Conn>();
            c->client = std::move(fd);
            c->prefix = std::move(prefix);
            begin(std::move(c), now);
          }
        });
    if (!ok) break;
    now = Clock::now();
    // Deadlines, then drop the dead.
    for (auto& c : conns_) {
      if (c->dead) continue;
      if (c->connecting && now >= c->connect_deadline) {
        end(*c, BridgeEnd::kConnectFailed);
      } else if (now - c->started >= limits_.lifetime) {
        end(*c, BridgeEnd::kLifetime);
      } else if (!c->connecting && now - c->last_io >= limits_.idle) {
        end(*c, BridgeEnd::kIdle);
      }
    }
    conns_.erase(
        std::remove_if(conns_.begin(), conns_.end(), [](const auto& c) { return c->dead; }),
        conns_.end());
  }
  for (auto& c : conns_) end(*c, BridgeEnd::kStopped);
  conns_.clear();
  active_.fetch_sub(inbox_.take().size());  // accepted by add(), never begun
}

}  // namespace qeli::transport
