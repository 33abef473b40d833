#include "dns/counters.h"

namespace qeli::dns {

const std::array<CounterInfo, kCounterCount>& counter_table() {
  static const std::array<CounterInfo, kCounterCount> table = {{
      {"dns_queries_udp", "client queries received over UDP"},
      {"dns_queries_tcp", "client queries received over TCP"},
      {"dns_cache_hits", "answered from the cache"},
      {"dns_blocked", "answered for dns.blocklist"},
      {"dns_forwarded", "questions sent upstream (cache misses)"},
      {"dns_upstream_sends", "upstream attempts, retries and fallbacks included"},
      {"dns_upstream_timeouts", "upstream attempts unanswered within their share of the timeout"},
      {"dns_upstream_errors", "upstream attempts refused (ICMP, TCP reset, early close)"},
      {"dns_failovers", "questions moved on to another upstream"},
      {"dns_tcp_fallbacks", "truncated UDP answers fetched again over TCP"},
      {"dns_servfail", "questions answered SERVFAIL: no upstream answered in time"},
      {"dns_malformed", "client messages that did not parse"},
      {"dns_bad_replies", "upstream messages dropped: unparsable, wrong ID or question"},
      {"dns_overload", "questions refused over the in-flight bounds"},
      {"dns_refused_source", "queries from outside the pool and loopback, dropped"},
      {"dns_tcp_rejected", "TCP connections closed at once over the connection bound"},
      {"dns_truncated", "UDP answers sent truncated (the client retries over TCP)"},
  }};
  return table;
}

}  // namespace qeli::dns
