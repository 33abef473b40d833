// What the DNS proxy counts: an enum per counter and one table of names and help texts,
// which `qeli stats` (server/control_handler.cc) and the docs walk (docs/OPERATIONS.md).
// Written by the proxy's thread, read by anyone (relaxed atomics, monotonic).
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace qeli::dns {

enum class Counter : std::uint8_t {
  kQueriesUdp,        ///< client queries received over UDP
  kQueriesTcp,        ///< client queries received over TCP
  kCacheHits,         ///< answered from the cache
  kBlocked,           ///< answered for dns.blocklist
  kForwarded,         ///< questions sent upstream (cache misses)
  kUpstreamSends,     ///< upstream attempts (retries, failovers and TCP fallbacks included)
  kUpstreamTimeouts,  ///< attempts an upstream left unanswered past their share of the timeout
  kUpstreamErrors,    ///< attempts an upstream refused (ICMP, TCP reset, early close)
  kFailovers,         ///< a question moved on to another upstream
  kTcpFallbacks,      ///< truncated UDP answers fetched again over TCP
  kServfail,          ///< questions answered SERVFAIL because no upstream answered in time
  kMalformed,         ///< client messages that did not parse (FORMERR or dropped)
  kBadReplies,        ///< upstream messages dropped: unparsable, or wrong ID or question
  kOverload,          ///< questions refused over the in-flight bounds (answered SERVFAIL)
  kRefusedSource,     ///< queries from outside the tunnel's pool and loopback (dropped)
  kTcpRejected,       ///< TCP connections closed at once (over kMaxTcpClients)
  kTruncated,         ///< UDP answers sent with TC=1 (too big for the client's buffer)
  kCount
};
inline constexpr std::size_t kCounterCount = static_cast<std::size_t>(Counter::kCount);

struct CounterInfo {
  const char* name;  ///< `dns_` + a snake_case name, as `qeli stats` shows it
  const char* help;
};
/// One entry per Counter, in enum order.
const std::array<CounterInfo, kCounterCount>& counter_table();

class Counters {
 public:
  void add(Counter c, std::uint64_t n = 1) {
    n_[static_cast<std::size_t>(c)].fetch_add(n, std::memory_order_relaxed);
  }
  std::uint64_t get(Counter c) const {
    return n_[static_cast<std::size_t>(c)].load(std::memory_order_relaxed);
  }

 private:
  std::array<std::atomic<std::uint64_t>, kCounterCount> n_{};
};

}  // namespace qeli::dns
