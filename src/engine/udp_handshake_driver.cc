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

std::optional<std::chrono::milliseconds> first_reply_time(handshake::UdpClientHandshake& hs,
                                                          transport::UdpSocket& sock,
                                                          const transport::SockAddr& server,
                                                          std::chrono::milliseconds timeout,
                                                          const StopSignal& stop) {
  using Clock = std::chrono::steady_clock;
  constexpr std::size_t kSlots = 8;
  Bytes buffer(kSlots * transport::kGroReadSize);
  std::vector<transport::RecvSlot> slots(kSlots);
  const auto started = Clock::now();
  hs.start(started);
  const auto end = started + timeout;
  for (auto now = started; now < end; now = Clock::now()) {
    // The flight may leave in paced pieces (the handshake's timer releases the next).
    if (const auto d = hs.deadline(); d && now >= *d) hs.on_timer(now);
    send_handshake_datagrams(sock, hs.take_datagrams(), server);
    if (hs.state() != handshake::State::kRunning) return std::nullopt;
    const auto deadline = hs.deadline();
    pollfd p[2] = {{sock.fd(), POLLIN, 0}, {stop.fd(), POLLIN, 0}};
    const int rc = ::poll(p, 2, ms_until(deadline && *deadline < end ? *deadline : end));
    if (rc < 0 && errno != EINTR) return std::nullopt;
    if (p[1].revents != 0) return std::nullopt;
    if (p[0].revents == 0) continue;
    for (std::size_t i = 0; i < kSlots; ++i) {
      slots[i] = transport::RecvSlot::over(buffer.data() + i * transport::kGroReadSize,
                                           transport::kGroReadSize);
    }
    auto n = sock.recv(slots);
    if (!n.ok() && n.error() != transport::UdpError::kWouldBlock) return std::nullopt;
    for (std::size_t i = 0; n.ok() && i < *n; ++i) {
      if (slots[i].from == server) {
        return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started);
      }
    }
  }
  return std::nullopt;
}

}  // namespace qeli::engine
