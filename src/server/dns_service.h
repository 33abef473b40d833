// DnsService: the DNS proxy of one profile (`dns.enabled`, docs/CONFIG.md §5.2) — the thin
// I/O runner around the sans-I/O dns::Resolver (src/dns/resolver.h).
//
//   one thread, one epoll set, one resolver and cache for both families:
//     UDP socket  dns.listen:dns.port   one datagram = one query; answered from the same
//                 [dns.listen_ipv6]:…   socket to the sender
//     TCP socket  dns.listen:dns.port   RFC 7766: pipelined, length-prefixed queries,
//                 [dns.listen_ipv6]:…   answers in completion order; ≤ kMaxTcpClients
//                                       connections, ≤ kMaxPipelinedPerConnection queries
//                                       in flight each, closed after kTcpIdleTimeout idle
//     attempts    one socket per upstream attempt (a fresh source port, connected to the
//                 upstream, so only its answers arrive), UDP or TCP; closed when the
//                 resolver says so
//   The IPv6 sockets (dns.listen_ipv6, when set) take IPv6 only (IPV6_V6ONLY). Only
//   sources inside the profile's pools (the tunnel's clients) and loopback are answered
//   (AllowedSources): the tunnel addresses are reachable from other interfaces too, and an
//   open resolver would serve amplification attacks. Others are dropped and counted.
//
// Thread-safety: start()/stop() from one thread; counters() from any.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "base/result.h"
#include "config/server_config.h"
#include "dns/counters.h"
#include "dns/resolver.h"
#include "server/allowed_sources.h"
#include "transport/sock_addr.h"

namespace qeli::server {

struct DnsServiceOptions {
  std::string profile;          ///< for logs
  std::uint32_t listen_ip = 0;  ///< host order
  /// Answers on this IPv6 address too, on the same port; nullopt: IPv4 only.
  std::optional<config::Ipv6Addr> listen_ipv6;
  std::uint16_t port = 53;  ///< 0 = any (tests)
  /// Whose queries are answered; every other source is dropped.
  AllowedSources allowed_sources;
  /// Where questions go, preferred first: IPv4 or IPv6 (RFC 5952 in logs), 1..16.
  /// resolver.upstream_count is set from it at start().
  std::vector<transport::SockAddr> upstreams;
  dns::ResolverConfig resolver;
};

/// The options for `p`'s proxy: dns.listen / dns.listen_ipv6 / dns.port, the usable entries
/// of dns.upstream (IPv4, and IPv6 per config::dns_upstream_usable; the loader warned about
/// the others), the blocklist, and pool.cidr +
/// 127.0.0.0/8, pool.ipv6.cidr + ::1 as the allowed sources. Precondition: the profile
/// passed the loader's validation.
DnsServiceOptions dns_service_options(const config::ProfileConfig& p);

class DnsService {
 public:
  /// Binds UDP and TCP on listen_ip:port (and on [listen_ipv6]:port) and starts the
  /// thread. Error: a message naming the address and the failing call (EADDRINUSE:
  /// another DNS server has the port; EADDRNOTAVAIL: no interface holds the address).
  static Result<std::unique_ptr<DnsService>, std::string> start(DnsServiceOptions o);
  ~DnsService();
  DnsService(const DnsService&) = delete;
  DnsService& operator=(const DnsService&) = delete;

  /// Ends the thread and closes every socket (queries in flight get no answer).
  void stop();
  const dns::Counters& counters() const { return counters_; }
  /// The port actually bound (UDP and TCP share it).
  std::uint16_t port() const { return port_; }

 private:
  struct Loop;
  explicit DnsService(DnsServiceOptions o);

  DnsServiceOptions opt_;
  dns::Counters counters_;
  std::uint16_t port_ = 0;
  std::unique_ptr<Loop> loop_;
  std::thread thread_;
};

}  // namespace qeli::server
