#include "server/reality_gate.h"

#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "server/tcp_carrier.h"
#include "tls/hello_peek.h"
#include "transport/tcp.h"

namespace qeli::server {
namespace {
using Clock = std::chrono::steady_clock;
}  // namespace

struct alignas(8) RealityGate::Peek {
  transport::UniqueFd fd;
  transport::SockAddr peer;
  Bytes seen;
  Instant started{}, last_progress{};
  bool done = false;
};

CarrierCounter RealityGate::counter_of(RealityVerdict v) {
  switch (v) {
    case RealityVerdict::kAccepted: return CarrierCounter::kRealityAccepted;
    case RealityVerdict::kBadHello: return CarrierCounter::kRealityBadHello;
    case RealityVerdict::kBadToken: return CarrierCounter::kRealityBadToken;
    case RealityVerdict::kExpired: return CarrierCounter::kRealityExpired;
    case RealityVerdict::kUnknownShortId: return CarrierCounter::kRealityUnknownShortId;
    case RealityVerdict::kRevoked: return CarrierCounter::kRealityRevoked;
    case RealityVerdict::kReplay: return CarrierCounter::kRealityReplay;
  }
  return CarrierCounter::kRealityBadHello;
}

RealityGate::RealityGate(Options options, RealityPolicy policy, CarrierCounters& counters,
                         OnClient on_client, OnStranger on_stranger)
    : opt_(options),
      policy_(std::move(policy)),
      counters_(counters),
      on_client_(std::move(on_client)),
      on_stranger_(std::move(on_stranger)) {}

RealityGate::~RealityGate() { stop(); }

Status<std::string> RealityGate::start() {
  if (auto st = inbox_.open(); !st.ok()) return fail("REALITY gate: " + st.error());
  stop_ = false;
  thread_ = std::thread([this] { run(); });
  return {};
}

void RealityGate::stop() {
  if (!thread_.joinable()) return;
  stop_ = true;
  inbox_.wake();
  thread_.join();
}

bool RealityGate::add(transport::UniqueFd fd, const transport::SockAddr& peer) {
  std::size_t n = pending_.load();
  do {
    if (n >= opt_.max_pending) {
      counters_.add(CarrierCounter::kRealityGateFull);
      return false;
    }
  } while (!pending_.compare_exchange_weak(n, n + 1));
  inbox_.post(Arrival{std::move(fd), peer});
  return true;
}

void RealityGate::finish(Peek& p) {
  p.done = true;
  pending_.fetch_sub(1);
}

void RealityGate::decide(Peek& p, CarrierCounter stranger_reason) {
  (void)::epoll_ctl(inbox_.epoll_fd(), EPOLL_CTL_DEL, p.fd.get(), nullptr);
  finish(p);
  counters_.add(stranger_reason);
  on_stranger_(std::move(p.fd), std::move(p.seen), stranger_reason);
}

void RealityGate::on_readable(Peek& p, Instant now) {
  for (;;) {
    const std::size_t room = tls::kPeekMaxRecord - p.seen.size();
    if (room == 0) break;
    const std::size_t at = p.seen.size();
    p.seen.resize(at + room);
    const ssize_t n = ::recv(p.fd.get(), p.seen.data() + at, room, MSG_DONTWAIT);
    p.seen.resize(at + static_cast<std::size_t>(std::max<ssize_t>(n, 0)));
    if (n > 0) {
      p.last_progress = now;
      const tls::PeekResult r = tls::peek_client_hello(p.seen);
      if (r.verdict == tls::PeekVerdict::kNotTls) return decide(p, CarrierCounter::kRealityNotTls);
      if (r.verdict == tls::PeekVerdict::kComplete) break;
      continue;
    }
    if (n == 0) {  // FIN mid-hello: the site gets what we got, then the FIN
      const tls::PeekResult r = tls::peek_client_hello(p.seen);
      return decide(p, r.verdict == tls::PeekVerdict::kNotTls
                           ? CarrierCounter::kRealityNotTls
                           : CarrierCounter::kRealityPeekTimeout);
    }
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return;
    (void)::epoll_ctl(inbox_.epoll_fd(), EPOLL_CTL_DEL, p.fd.get(), nullptr);
    counters_.add(CarrierCounter::kBridgeClosedError);  // reset while we looked
    finish(p);
    p.fd.reset();
    return;
  }
  const tls::PeekResult r = tls::peek_client_hello(p.seen);
  if (r.verdict != tls::PeekVerdict::kComplete) return;
  const RealityDecision d = authenticate_hello(ByteSpan(p.seen).first(r.size), policy_, unix_now());
  if (d.verdict != RealityVerdict::kAccepted) return decide(p, counter_of(d.verdict));
  (void)::epoll_ctl(inbox_.epoll_fd(), EPOLL_CTL_DEL, p.fd.get(), nullptr);
  finish(p);
  counters_.add(CarrierCounter::kRealityAccepted);
  on_client_(std::move(p.fd), p.peer, std::move(p.seen), d.owner);
}

void RealityGate::run() {
  std::vector<epoll_event> events(128);
  const Duration stall = std::max<Duration>(opt_.budget / 5, std::chrono::milliseconds(100));
  while (!stop_) {
    // Wakes at least every 50 ms for the deadlines (stalls are ≥ 100 ms).
    const bool ok = inbox_.wait(
        events, 50,
        [&](std::uint64_t tag) {
          auto* p = reinterpret_cast<Peek*>(static_cast<std::uintptr_t>(tag));
          if (!p->done) on_readable(*p, Clock::now());
        },
        [&](std::vector<Arrival> q) {
          const Instant now = Clock::now();
          for (auto& a : q) {
            auto p = std::make_unique<Peek>();
            p->fd = std::move(a.fd);
            p->peer = a.peer;
            p->started = p->last_progress = now;
            p->seen.reserve(2048);
            transport::set_nonblocking(p->fd.get(), true);
            epoll_event ev{};
            ev.events = EPOLLIN;
            ev.data.u64 = reinterpret_cast<std::uintptr_t>(p.get());
            if (::epoll_ctl(inbox_.epoll_fd(), EPOLL_CTL_ADD, p->fd.get(), &ev) != 0) {
              finish(*p);
              continue;
            }
            peeks_.push_back(std::move(p));
          }
        });
    if (!ok) break;
    const Instant now = Clock::now();
    for (auto& p : peeks_) {
      if (p->done) continue;
      if (now - p->started >= opt_.budget || now - p->last_progress >= stall) {
        const tls::PeekResult r = tls::peek_client_hello(p->seen);
        decide(*p, r.verdict == tls::PeekVerdict::kNotTls ? CarrierCounter::kRealityNotTls
                                                          : CarrierCounter::kRealityPeekTimeout);
      }
    }
    peeks_.erase(
        std::remove_if(peeks_.begin(), peeks_.end(), [](const auto& p) { return p->done; }),
        peeks_.end());
  }
  for (auto& p : peeks_) {
    if (!p->done) finish(*p);
  }
  peeks_.clear();
  pending_.fetch_sub(inbox_.take().size());
}

}  // namespace qeli::server
