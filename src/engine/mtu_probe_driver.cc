#include "engine/mtu_probe_driver.h"

#include <poll.h>

#include <cerrno>
#include <chrono>

#include "engine/session_loop.h"
#include "wire/limits.h"
#include "wire/udp_frag.h"

namespace qeli::engine {

MtuProbeReport probe_path_mtu(transport::UdpSocket& sock, const transport::SockAddr& server,
                              const wire::UdpEnvelope& env, std::uint32_t& next_pn,
                              handshake::MtuProberConfig config, const StopSignal& stop,
                              crypto::Rng& rng) {
  using Clock = std::chrono::steady_clock;
  const std::size_t envelope = env.overhead(false, 0);
  config.outer_overhead += envelope;
  // Over IPv6 the outer header is 20 bytes longer: the same rung makes a larger packet, and
  // "fits a 1280-byte path" means a smaller rung.
  const std::size_t ip_udp =
      server.is_ipv6() ? handshake::kProbeUdpIpv6Overhead : handshake::kProbeUdpIpv4Overhead;
  config.outer_overhead += ip_udp - handshake::kProbeUdpIpv4Overhead;
  MtuProbeReport report;
  const Instant t0 = Clock::now();
  handshake::MtuProber prober(config, t0);
  sock.set_pmtu_mode(transport::PmtuMode::kDo);

  constexpr std::size_t kSlots = 8;
  Bytes buffer(kSlots * transport::kGroReadSize);
  std::vector<transport::RecvSlot> slots(kSlots);
  while (!prober.done()) {
    while (auto r = prober.next(Clock::now())) {
      // outer = IP + UDP + envelope + probe: the probe carries the rest.
      const std::size_t udp_payload = r->probe.outer_size - ip_udp;
      const Bytes probe = wire::build_mtu_probe(r->probe, udp_payload - envelope, rng);
      const Bytes d = env.wrap(probe, false, next_pn++, rng);
      const transport::OutDatagram out{d.data(), d.size(), &server};
      const auto sent = sock.send({&out, 1});
      ++report.probes;
      prober.on_sent(sent.emsgsize > 0, Clock::now());
    }
    if (prober.done()) break;
    pollfd p[2] = {{sock.fd(), POLLIN, 0}, {stop.fd(), POLLIN, 0}};
    const int rc = ::poll(p, 2, ms_until(*prober.deadline()));
    if ((rc < 0 && errno != EINTR) || p[1].revents != 0) {
      report.stopped = true;
      break;
    }
    if (p[0].revents != 0) {
      for (std::size_t i = 0; i < kSlots; ++i) {
        slots[i] = transport::RecvSlot::over(buffer.data() + i * transport::kGroReadSize,
                                             transport::kGroReadSize);
      }
      auto n = sock.recv(slots);
      for (std::size_t i = 0; n.ok() && i < *n; ++i) {
        if (!(slots[i].from == server)) continue;
        auto opened = wire::open_datagram(env, MutableByteSpan(slots[i].data, slots[i].len));
        if (!opened.ok()) continue;
        auto ack = wire::parse_mtu_probe(opened->inner);
        if (ack.ok() && ack->is_ack) prober.on_ack(ack->probe, Clock::now());
      }
    }
    const Instant now = Clock::now();
    if (const auto d = prober.deadline(); d && now >= *d) prober.on_timer(now);
  }
  sock.set_pmtu_mode(transport::PmtuMode::kWant);
  report.outcome = prober.done() ? prober.outcome() : handshake::MtuProbeOutcome::kFallback;
  report.mtu = prober.done() ? prober.mtu()
                             : std::clamp(config.ceiling, wire::kMinTunnelMtu, wire::kMaxTunnelMtu);
  report.refused = prober.refused();
  report.took = Clock::now() - t0;
  return report;
}

}  // namespace qeli::engine
