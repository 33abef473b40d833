// HandleStats: the counters of one libqeli handle (qeli_client_stats) — the sum over the
// sessions that ended plus the live session's figures, read from the atomics its threads
// write (tunnel::SessionCounters; for a UDP session also its socket's
// transport::UdpRxStats). The data path never waits for a reader: it only writes those
// atomics, and a read is a handful of relaxed loads.
//
// A session is attach()ed when its data phase starts and end()ed (folded into the sums)
// while its figures still live. A run that a stop left winding down may end its session
// after the next run's began: end() folds the one it is given and forgets the live one
// only if that is it.
//
// Threading: none of its own — FfiClient's mutex guards every call. The figures attached
// must outlive their end() or forget().
#pragma once

#include <cstdint>

#include "transport/udp_rx_stats.h"
#include "tunnel/session_counters.h"

namespace qeli::ffi {

struct Stats {
  std::uint32_t state = 0;
  std::uint64_t tx_packets = 0, tx_bytes = 0, rx_packets = 0, rx_bytes = 0;
  std::uint64_t reconnects = 0, uptime_ms = 0, internal_drops = 0;
  /// UDP sessions only (0 for TCP): the kernel's drops at the socket's receive queue and
  /// the automatic buffer's grows, summed over the sessions; the receive buffer's size
  /// the kernel granted, the live session's, else the last one's (as 0.7.16 reports it).
  std::uint64_t udp_kernel_drops = 0, udp_buffer_grows = 0, udp_recv_buffer_bytes = 0;
};

class HandleStats {
 public:
  /// The session whose data phase started: `counters`, and `udp` for a UDP one (it may
  /// come in a later call, after the counters).
  void attach(const tunnel::SessionCounters& counters) { live_ = &counters; }
  void attach_udp(const transport::UdpRxStats& udp) { live_udp_ = &udp; }
  /// Folds a session that ended into the sums (either pointer may be null: a session
  /// without that part); it is no longer the live one.
  void end(const tunnel::SessionCounters* counters, const transport::UdpRxStats* udp);
  /// Drops a session's figures without reading them (they are gone already).
  void forget(const tunnel::SessionCounters* counters, const transport::UdpRxStats* udp);
  /// Drops counted outside the sessions' counters (the packet pipe's).
  void add_internal_drops(std::uint64_t n) { totals_.internal_drops += n; }

  /// The sums plus the live session's figures. `state`, `reconnects` and `uptime_ms` are
  /// the handle's to fill in.
  Stats read() const;

 private:
  Stats totals_;
  const tunnel::SessionCounters* live_ = nullptr;
  const transport::UdpRxStats* live_udp_ = nullptr;
};

}  // namespace qeli::ffi
