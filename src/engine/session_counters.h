// Per-session data-plane counters, written by the session's threads and read by the
// control plane (status, metrics) at any time: relaxed atomics, monotonic.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

namespace qeli::engine {

struct SessionCounters {
  std::atomic<std::uint64_t> tx_packets{0};  ///< IP packets sealed toward the peer
  std::atomic<std::uint64_t> tx_bytes{0};    ///< IP bytes (inner) sealed toward the peer
  std::atomic<std::uint64_t> rx_packets{0};  ///< IP packets received and written to the TUN
  std::atomic<std::uint64_t> rx_bytes{0};
  std::atomic<std::uint64_t> heartbeats_rx{0};
  std::atomic<std::uint64_t> heartbeats_tx{0};
  std::atomic<std::uint64_t> control_rx{0};
  std::atomic<std::uint64_t> drop_not_ipv4{0};  ///< neither IPv4 nor IPv6: garbage
  /// IPv6 inside the tunnel (0.7.16 carries IPv4 only), e.g. a router solicitation from a
  /// peer whose TUN still has IPv6 on; counted apart so not_ipv4 means garbage.
  std::atomic<std::uint64_t> drop_ipv6{0};
  std::atomic<std::uint64_t> drop_bad_source{0};  ///< server: source ≠ the client's address
  std::atomic<std::uint64_t> drop_policy{0};      ///< server: client_to_client / ACL
  std::atomic<std::uint64_t> drop_queue_full{0};  ///< bounded queue overflow
  std::atomic<std::uint64_t> drop_replay{0};      ///< replayed / too-old record
  std::atomic<std::uint64_t> drop_tun_write{0};   ///< the kernel refused the packet
  /// GSO chunk out of order or with bad metadata; a super-packet that could not be split
  std::atomic<std::uint64_t> drop_bad_gso{0};
  /// Server: a downlink packet above the client's reported MTU that could not be
  /// fragmented (malformed, a non-DF GSO super-packet) nor answered with an ICMP (not sent)
  std::atomic<std::uint64_t> drop_too_big{0};
  /// Server: downlink packets above the client's MTU with DF, answered with an ICMP
  /// "fragmentation needed" toward their origin (not a drop of ours to fix: the origin's
  /// path MTU discovery at work)
  std::atomic<std::uint64_t> frag_needed_sent{0};
  /// Server: downlink packets above the client's MTU without DF, sent as IPv4 fragments
  /// (one per packet split, not per fragment; the client's kernel reassembles them)
  std::atomic<std::uint64_t> frag_tx{0};

  static void add(std::atomic<std::uint64_t>& c, std::uint64_t n = 1) {
    c.fetch_add(n, std::memory_order_relaxed);
  }
  /// Counts a packet that is not carried: drop_ipv6 when its version nibble is 6 (and it
  /// holds at least the 40-byte IPv6 header), drop_not_ipv4 otherwise.
  void count_not_ipv4(const std::uint8_t* pkt, std::size_t len) {
    add(len >= 40 && (pkt[0] >> 4) == 6 ? drop_ipv6 : drop_not_ipv4);
  }
};

/// "queue_full=12 replay=1" for the non-zero drop counters, "none" if all are zero
/// (for the disconnect log line).
std::string describe_drops(const SessionCounters& c);

}  // namespace qeli::engine
