// Runs the client's sans-I/O path-MTU prober (handshake/mtu_prober.h) over its UdpSocket
// after AUTH OK and before the TUN opens (reference qeli-0.7.16.md §3.9):
//
//   1. the socket is switched to DF-set sends (IP_PMTUDISC_DO: a size above the path MTU
//      the kernel knows fails with EMSGSIZE at once);
//   2. each probe (msg 4) is built to its outer size and wrapped in the session's
//      envelope with a QUIC short header (the packet numbers continue the data
//      sequence: `next_pn` is advanced past them) and the obfs seal, exactly like a
//      full-size data datagram; an EMSGSIZE goes back to the prober as "too big";
//   3. datagrams from the server are opened with the same envelope; acks (msg 5) go to
//      the prober, anything else (an early data record) is ignored;
//   4. the socket goes back to the kernel's default policy (IP_PMTUDISC_WANT).
// Bounded by the prober's budget (≤ 3 s by default) and the stop signal.
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/clock.h"
#include "crypto/random.h"
#include "engine/stop_signal.h"
#include "handshake/mtu_prober.h"
#include "transport/udp_socket.h"
#include "wire/udp_envelope.h"

namespace qeli::engine {

struct MtuProbeReport {
  std::size_t mtu = 0;  ///< the chosen tunnel MTU (bytes)
  handshake::MtuProbeOutcome outcome = handshake::MtuProbeOutcome::kFallback;
  std::size_t probes = 0;   ///< probes handed to the socket
  std::size_t refused = 0;  ///< rungs the kernel refused (EMSGSIZE)
  Duration took{};
  bool stopped = false;  ///< the stop signal fired (mtu is then the fallback)
};

/// Probes the path to `server` (see above). `env` is the session's envelope (its obfs
/// seal borrowed; not used by another thread meanwhile). The envelope overhead is added
/// to config.outer_overhead here.
MtuProbeReport probe_path_mtu(transport::UdpSocket& sock, const transport::SockAddr& server,
                              const wire::UdpEnvelope& env, std::uint32_t& next_pn,
                              handshake::MtuProberConfig config, const StopSignal& stop,
                              crypto::Rng& rng);

}  // namespace qeli::engine
