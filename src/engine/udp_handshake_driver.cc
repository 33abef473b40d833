#include "engine/udp_handshake_driver.h"

#include <poll.h>

#include <cerrno>
#include <chrono>

#include "engine/session_loop.h"
#include "transport/udp_gso.h"

namespace qeli::engine {

std::size_t send_handshake_datagrams(transport::UdpSocket& sock,
                                     const std::vector<Bytes>& datagrams,
                                     const transport::SockAddr& to) {
  std::size_t sent = 0;
  for (const Bytes& d : datagrams) {
    const transport::OutDatagram out{d.data(), d.size(), &to};
    const auto r = sock.send({&out, 1});
    if (r.sent == 1 && r.dropped == 0) ++sent;
  }
  return sent;
}

handshake::Failure drive_udp_client_handshake(handshake::UdpClientHandshake& hs,
                                              transport::UdpSocket& sock,
                                              const transport::SockAddr& server,
                                              const StopSignal& stop) {
  using Clock = std::chrono::steady_clock;
  // Receive slots: with UDP GRO the kernel fills the last kGroRecvSlots with up to 64 KiB.
  constexpr std::size_t kSlots = 8;
  Bytes buffer(kSlots * transport::kGroReadSize);
  std::vector<transport::RecvSlot> slots(kSlots);
  hs.start(Clock::now());
  for (;;) {
    send_handshake_datagrams(sock, hs.take_datagrams(), server);
    if (hs.state() != handshake::State::kRunning) break;
    const auto deadline = hs.deadline();
    pollfd p[2] = {{sock.fd(), POLLIN, 0}, {stop.fd(), POLLIN, 0}};
    const int rc = ::poll(p, 2, deadline ? ms_until(*deadline) : 1000);
    if (rc < 0 && errno != EINTR) return handshake::Failure::kTimeout;
    if (p[1].revents != 0) return handshake::Failure::kTimeout;
    if (p[0].revents != 0) {
      for (std::size_t i = 0; i < kSlots; ++i) {
        slots[i] = transport::RecvSlot::over(buffer.data() + i * transport::kGroReadSize,
                                             transport::kGroReadSize);
      }
      auto n = sock.recv(slots);
      if (!n.ok() && n.error() != transport::UdpError::kWouldBlock) {
        return handshake::Failure::kTimeout;
      }
      for (std::size_t i = 0; n.ok() && i < *n; ++i) {
        if (!(slots[i].from == server)) continue;  // not our server: ignored
        hs.on_datagram(MutableByteSpan(slots[i].data, slots[i].len), Clock::now());
      }
    }
    const auto now = Clock::now();
    if (const auto d = hs.deadline(); d && now >= *d) hs.on_timer(now);
  }
  // What the finished handshake still emits (nothing, without extensions) goes out above.
  return hs.state() == handshake::State::kDone ? handshake::Failure::kNone : hs.failure();
}

std::optional<std::chrono::milliseconds> first_reply_time(std::span<ReplyProbe> probes,
                                                          std::chrono::milliseconds timeout,
                                                          const StopSignal& stop) {
  using Clock = std::chrono::steady_clock;
  constexpr std::size_t kSlots = 8;
  Bytes buffer(kSlots * transport::kGroReadSize);
  std::vector<transport::RecvSlot> slots(kSlots);
  std::vector<pollfd> fds(probes.size() + 1);
  std::vector<std::size_t> who(probes.size());  // fds[k] is probes[who[k]]'s socket
  std::vector<bool> live(probes.size(), true);
  const auto started = Clock::now();
  for (auto& p : probes) p.hs->start(started);
  const auto end = started + timeout;
  for (auto now = started; now < end; now = Clock::now()) {
    // Each flight may leave in paced pieces (its handshake's timer releases the next).
    auto wake = end;
    std::size_t n = 0;
    for (std::size_t i = 0; i < probes.size(); ++i) {
      auto& p = probes[i];
      if (!live[i]) continue;
      if (const auto d = p.hs->deadline(); d && now >= *d) p.hs->on_timer(now);
      send_handshake_datagrams(*p.sock, p.hs->take_datagrams(), p.server);
      if (p.hs->state() != handshake::State::kRunning) {
        live[i] = false;
        continue;
      }
      if (const auto d = p.hs->deadline(); d && *d < wake) wake = *d;
      fds[n] = {p.sock->fd(), POLLIN, 0};
      who[n++] = i;
    }
    if (n == 0) return std::nullopt;
    fds[n] = {stop.fd(), POLLIN, 0};
    const int rc = ::poll(fds.data(), n + 1, ms_until(wake));
    if (rc < 0 && errno != EINTR) return std::nullopt;
    if (fds[n].revents != 0) return std::nullopt;
    for (std::size_t k = 0; k < n; ++k) {
      if (fds[k].revents == 0) continue;
      auto& p = probes[who[k]];
      for (std::size_t j = 0; j < kSlots; ++j) {
        slots[j] = transport::RecvSlot::over(buffer.data() + j * transport::kGroReadSize,
                                             transport::kGroReadSize);
      }
      auto got = p.sock->recv(slots);
      if (!got.ok() && got.error() != transport::UdpError::kWouldBlock) {
        live[who[k]] = false;  // an ICMP error, say: this address is done for
        continue;
      }
      for (std::size_t j = 0; got.ok() && j < *got; ++j) {
        if (slots[j].from == p.server) {
          return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started);
        }
      }
    }
  }
  return std::nullopt;
}

}  // namespace qeli::engine
