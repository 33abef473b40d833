#include "ffi/handle_stats.h"

#include <atomic>

namespace qeli::ffi {
namespace {

using tunnel::SessionCounter;

void add_session(Stats& s, const tunnel::SessionCounters& c) {
  s.tx_packets += c.get(SessionCounter::kTxPackets);
  s.tx_bytes += c.get(SessionCounter::kTxBytes);
  s.rx_packets += c.get(SessionCounter::kRxPackets);
  s.rx_bytes += c.get(SessionCounter::kRxBytes);
}

// Drops and grows add up over the sessions; the buffer's size is a gauge: the latest wins.
void add_udp(Stats& s, const transport::UdpRxStats& u) {
  s.udp_kernel_drops += u.kernel_drops.load(std::memory_order_relaxed);
  s.udp_buffer_grows += u.buffer_grows.load(std::memory_order_relaxed);
  s.udp_recv_buffer_bytes = u.recv_buffer_bytes.load(std::memory_order_relaxed);
}

}  // namespace

void HandleStats::end(const tunnel::SessionCounters* counters, const transport::UdpRxStats* udp) {
  if (counters != nullptr) add_session(totals_, *counters);
  // The size becomes this socket's last; while another session is live, read() shows
  // that one's (a session a stop left winding down may end after the next one began).
  if (udp != nullptr) add_udp(totals_, *udp);
  forget(counters, udp);
}

void HandleStats::forget(const tunnel::SessionCounters* counters,
                         const transport::UdpRxStats* udp) {
  if (counters != nullptr && live_ == counters) live_ = nullptr;
  if (udp != nullptr && live_udp_ == udp) live_udp_ = nullptr;
}

Stats HandleStats::read() const {
  Stats s = totals_;
  if (live_ != nullptr) add_session(s, *live_);
  if (live_udp_ != nullptr) add_udp(s, *live_udp_);
  return s;
}

}  // namespace qeli::ffi
