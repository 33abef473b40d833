// The DNS proxy's I/O runner with real sockets on loopback (no root needed): a fake
// upstream answers A queries (and truncates `big.` names over UDP), the proxy runs as it
// does in a profile. What the netns e2e (tests/e2e/dns_proxy.sh) checks through a tunnel,
// this checks for the runner alone: UDP and pipelined TCP clients, the cache, the TCP
// fallback, failover from a refusing upstream, the source ACL, both families on one port.
#include "server/dns_service.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>

#include "dns/message.h"
#include "dns/name.h"
#include "dns/tcp_framer.h"
#include "transport/sock_addr.h"
#include "transport/unique_fd.h"
#include "unit/dns/dns_builder.h"

namespace qeli::server {
namespace {

using namespace dns::test;
using transport::UniqueFd;

constexpr std::uint32_t kLoopback = 0x7F000001;

transport::SockAddr loopback_at(std::uint16_t port, bool v6) {
  return *transport::SockAddr::parse_ip(v6 ? "::1" : "127.0.0.1", port);
}
sockaddr_in loopback(std::uint16_t port) {
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(kLoopback);
  sa.sin_port = htons(port);
  return sa;
}
std::uint16_t port_of(int fd) { return transport::SockAddr::local_of(fd).port(); }

// The answer the fake upstream gives: one A record, or for `big.*` a 3000-byte TXT
// (over UDP only the header with TC set).
Bytes upstream_answer(ByteSpan query, bool udp) {
  auto q = dns::parse_query(query);
  if (!q) return {};
  Msg m;
  m.id = q->header.id;
  m.flags = 0x8180;
  m.qname = dns::to_text(q->question.name);
  m.qname.pop_back();  // the trailing dot
  m.qtype = q->question.qtype;
  if (m.qname.rfind("big.", 0) == 0) {
    if (udp) {
      m.flags |= 0x0200;
    } else {
      m.answer = {txt_record(300, 3000)};
    }
  } else {
    m.answer = {a_record(300, 9)};
  }
  return m.build();
}

// UDP + TCP on 127.0.0.1:<port> (or [::1]:<port>), answering until destroyed.
class FakeUpstream {
 public:
  explicit FakeUpstream(bool v6 = false)
      : udp_(::socket(v6 ? AF_INET6 : AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)),
        tcp_(::socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    transport::SockAddr sa = loopback_at(0, v6);
    EXPECT_EQ(::bind(udp_.get(), &sa.sa, sa.len), 0);
    sa = loopback_at(port_of(udp_.get()), v6);
    const int one = 1;
    ::setsockopt(tcp_.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    EXPECT_EQ(::bind(tcp_.get(), &sa.sa, sa.len), 0);
    ::listen(tcp_.get(), 8);
    thread_ = std::thread([this] { run(); });
  }
  ~FakeUpstream() {
    stop_ = true;
    thread_.join();
  }
  std::uint16_t port() const { return port_of(udp_.get()); }
  int udp_queries() const { return udp_queries_; }
  int tcp_queries() const { return tcp_queries_; }

 private:
  void run() {
    Bytes buf(65535);
    while (!stop_) {
      pollfd p[2] = {{udp_.get(), POLLIN, 0}, {tcp_.get(), POLLIN, 0}};
      if (::poll(p, 2, 50) <= 0) continue;
      if (p[0].revents != 0) {
        sockaddr_storage from{};
        socklen_t len = sizeof from;
        const ssize_t n = ::recvfrom(udp_.get(), buf.data(), buf.size(), 0,
                                     reinterpret_cast<sockaddr*>(&from), &len);
        ++udp_queries_;
        const Bytes a = upstream_answer(ByteSpan(buf.data(), static_cast<std::size_t>(n)), true);
        ::sendto(udp_.get(), a.data(), a.size(), 0, reinterpret_cast<sockaddr*>(&from), len);
      }
      if (p[1].revents != 0) {
        UniqueFd c(::accept(tcp_.get(), nullptr, nullptr));
        dns::TcpDeframer in;
        while (true) {
          const ssize_t n = ::read(c.get(), buf.data(), 4096);
          if (n <= 0) break;
          in.feed(ByteSpan(buf.data(), static_cast<std::size_t>(n)));
          if (auto m = in.next()) {
            ++tcp_queries_;
            const Bytes a = dns::tcp_frame(upstream_answer(*m, false));
            (void)::write(c.get(), a.data(), a.size());
            break;
          }
        }
      }
    }
  }

  UniqueFd udp_, tcp_;
  std::atomic<bool> stop_{false};
  std::atomic<int> udp_queries_{0}, tcp_queries_{0};
  std::thread thread_;
};

DnsServiceOptions options(std::vector<std::uint16_t> upstream_ports) {
  DnsServiceOptions o;
  o.profile = "test";
  o.listen_ip = kLoopback;
  o.port = 0;
  o.allowed_sources = AllowedSources({*config::Ipv4Cidr::parse("127.0.0.0/8")}, {});
  for (auto p : upstream_ports) o.upstreams.push_back(transport::SockAddr::ipv4(kLoopback, p));
  o.resolver.timeout = std::chrono::seconds{3};
  o.resolver.blocklist.add(*dns::parse_domain("blocked.test"));
  return o;
}

// One UDP query to the proxy on ::1 or 127.0.0.1; the answer or empty after `wait_ms`.
Bytes ask_udp(std::uint16_t port, const Bytes& q, bool v6 = false, int wait_ms = 3000) {
  const transport::SockAddr to = loopback_at(port, v6);
  UniqueFd s(::socket(to.family(), SOCK_DGRAM | SOCK_CLOEXEC, 0));
  ::sendto(s.get(), q.data(), q.size(), 0, &to.sa, to.len);
  pollfd p{s.get(), POLLIN, 0};
  if (::poll(&p, 1, wait_ms) != 1) return {};
  Bytes buf(65535);
  const ssize_t n = ::recv(s.get(), buf.data(), buf.size(), 0);
  buf.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  return buf;
}

// Several queries pipelined on one TCP connection; the answers in arrival order.
std::vector<Bytes> ask_tcp(std::uint16_t port, const std::vector<Bytes>& qs, bool v6 = false) {
  const transport::SockAddr to = loopback_at(port, v6);
  UniqueFd s(::socket(to.family(), SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (::connect(s.get(), &to.sa, to.len) != 0) return {};
  Bytes all;
  for (const auto& q : qs) {
    const Bytes f = dns::tcp_frame(q);
    all.insert(all.end(), f.begin(), f.end());
  }
  (void)::write(s.get(), all.data(), all.size());
  dns::TcpDeframer in;
  std::vector<Bytes> out;
  Bytes buf(65535);
  while (out.size() < qs.size()) {
    pollfd p{s.get(), POLLIN, 0};
    if (::poll(&p, 1, 3000) != 1) break;
    const ssize_t n =
        ::read(s.get(), buf.data(), in.space() < buf.size() ? in.space() : buf.size());
    if (n <= 0) break;
    in.feed(ByteSpan(buf.data(), static_cast<std::size_t>(n)));
    while (auto m = in.next()) out.push_back(*m);
  }
  return out;
}

TEST(DnsService, UdpAnswerThenCacheHit) {
  FakeUpstream up;
  auto svc = DnsService::start(options({up.port()}));
  ASSERT_TRUE(svc.ok()) << svc.error();
  const Bytes a1 = ask_udp((*svc)->port(), query("www.test", 1, 0x0101).build());
  ASSERT_FALSE(a1.empty());
  EXPECT_EQ(id_of(a1), 0x0101);
  EXPECT_EQ(a1.back(), 9);  // 192.0.2.9
  const Bytes a2 = ask_udp((*svc)->port(), query("WWW.test", 1, 0x0202).build());
  ASSERT_FALSE(a2.empty());
  EXPECT_EQ(id_of(a2), 0x0202);
  EXPECT_EQ(up.udp_queries(), 1);
  EXPECT_EQ((*svc)->counters().get(dns::Counter::kCacheHits), 1U);
}

TEST(DnsService, PipelinedTcpQueriesAreAllAnswered) {
  FakeUpstream up;
  auto svc = DnsService::start(options({up.port()}));
  ASSERT_TRUE(svc.ok()) << svc.error();
  std::vector<Bytes> qs;
  for (std::uint16_t i = 0; i < 40; ++i) {  // more than a connection may have in flight
    qs.push_back(
        query("n" + std::to_string(i) + ".test", 1, static_cast<std::uint16_t>(100 + i)).build());
  }
  qs.push_back(query("ads.blocked.test", 1, 999).build());
  const auto answers = ask_tcp((*svc)->port(), qs);
  ASSERT_EQ(answers.size(), qs.size());
  std::set<std::uint16_t> ids;
  for (const auto& a : answers) ids.insert(id_of(a));
  EXPECT_EQ(ids.size(), qs.size());
  EXPECT_EQ((*svc)->counters().get(dns::Counter::kQueriesTcp), qs.size());
  EXPECT_EQ((*svc)->counters().get(dns::Counter::kBlocked), 1U);
}

TEST(DnsService, TruncatedUpstreamAnswerIsFetchedOverTcp) {
  FakeUpstream up;
  auto svc = DnsService::start(options({up.port()}));
  ASSERT_TRUE(svc.ok()) << svc.error();
  // Over UDP the client gets TC (3000 bytes do not fit 512), over TCP the whole answer.
  const Bytes udp = ask_udp((*svc)->port(), query("big.test", 16, 7).build());
  ASSERT_GE(udp.size(), 12U);
  EXPECT_NE(flags_of(udp) & 0x0200, 0);
  const auto tcp = ask_tcp((*svc)->port(), {query("big.test", 16, 8).build()});
  ASSERT_EQ(tcp.size(), 1U);
  EXPECT_GT(tcp[0].size(), 3000U);
  EXPECT_EQ(up.tcp_queries(), 1);  // the TCP fallback; the client's retry hit the cache
  EXPECT_EQ((*svc)->counters().get(dns::Counter::kTcpFallbacks), 1U);
}

TEST(DnsService, RefusingFirstUpstreamFailsOverAtOnce) {
  FakeUpstream up;
  // A port nobody listens on: ICMP port unreachable, ECONNREFUSED on the attempt.
  UniqueFd hole(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  sockaddr_in sa = loopback(0);
  ::bind(hole.get(), reinterpret_cast<sockaddr*>(&sa), sizeof sa);
  const std::uint16_t dead = port_of(hole.get());
  hole.reset();
  auto svc = DnsService::start(options({dead, up.port()}));
  ASSERT_TRUE(svc.ok()) << svc.error();
  const auto t0 = std::chrono::steady_clock::now();
  const Bytes a = ask_udp((*svc)->port(), query("x.test").build());
  ASSERT_FALSE(a.empty());
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds{900});
  EXPECT_EQ((*svc)->counters().get(dns::Counter::kUpstreamErrors), 1U);
  EXPECT_EQ((*svc)->counters().get(dns::Counter::kFailovers), 1U);
}

TEST(DnsService, SourcesOutsideTheAllowedNetworksGetNothing) {
  FakeUpstream up;
  DnsServiceOptions o = options({up.port()});
  o.allowed_sources = AllowedSources({*config::Ipv4Cidr::parse("10.9.0.0/24")}, {});
  auto svc = DnsService::start(std::move(o));
  ASSERT_TRUE(svc.ok()) << svc.error();
  UniqueFd s(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  const Bytes q = query("x.test").build();
  const sockaddr_in to = loopback((*svc)->port());
  ::sendto(s.get(), q.data(), q.size(), 0, reinterpret_cast<const sockaddr*>(&to), sizeof to);
  pollfd p{s.get(), POLLIN, 0};
  EXPECT_EQ(::poll(&p, 1, 300), 0);
  EXPECT_EQ((*svc)->counters().get(dns::Counter::kRefusedSource), 1U);
  EXPECT_EQ(up.udp_queries(), 0);
}

TEST(DnsService, APortInUseIsAClearError) {
  FakeUpstream up;
  auto first = DnsService::start(options({up.port()}));
  ASSERT_TRUE(first.ok());
  DnsServiceOptions o = options({up.port()});
  o.port = (*first)->port();
  auto second = DnsService::start(std::move(o));
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.error().find("cannot bind udp 127.0.0.1:"), std::string::npos) << second.error();
}

// dns.listen_ipv6: the same port on an IPv6 address, answered from the one resolver and
// cache; IPv6 sources are checked against the IPv6 networks.
bool has_ipv6_loopback() {
  UniqueFd s(::socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  const transport::SockAddr a = loopback_at(0, true);
  return s.valid() && ::bind(s.get(), &a.sa, a.len) == 0;
}

DnsServiceOptions options6(std::vector<std::uint16_t> upstream_ports, const char* allowed6) {
  DnsServiceOptions o = options(std::move(upstream_ports));
  o.listen_ipv6 = config::Ipv6Addr::parse("::1");
  o.allowed_sources = AllowedSources({*config::Ipv4Cidr::parse("127.0.0.0/8")},
                                     {*config::Ipv6Cidr::parse(allowed6)});
  return o;
}

TEST(DnsService, AnswersOverIpv6UdpAndTcpFromTheSameCache) {
  if (!has_ipv6_loopback()) GTEST_SKIP() << "no IPv6 loopback here";
  FakeUpstream up;
  auto svc = DnsService::start(options6({up.port()}, "::1/128"));
  ASSERT_TRUE(svc.ok()) << svc.error();
  const std::uint16_t port = (*svc)->port();
  const Bytes a1 = ask_udp(port, query("six.test", 1, 0x0601).build(), /*v6=*/true);
  ASSERT_FALSE(a1.empty());
  EXPECT_EQ(id_of(a1), 0x0601);
  EXPECT_EQ(a1.back(), 9);
  const auto tcp = ask_tcp(port, {query("tcp6.test", 1, 0x0602).build()}, /*v6=*/true);
  ASSERT_EQ(tcp.size(), 1U);
  EXPECT_EQ(id_of(tcp[0]), 0x0602);
  // IPv4 on the same port, the name IPv6 asked for: from the cache.
  const Bytes a4 = ask_udp(port, query("six.test", 1, 0x0603).build());
  ASSERT_FALSE(a4.empty());
  EXPECT_EQ(id_of(a4), 0x0603);
  EXPECT_EQ(up.udp_queries(), 2);
  EXPECT_EQ((*svc)->counters().get(dns::Counter::kCacheHits), 1U);
  EXPECT_EQ((*svc)->counters().get(dns::Counter::kRefusedSource), 0U);
}

// dns.upstream with an IPv6 resolver: asked over IPv6 (UDP, and TCP for a truncated
// answer) for an IPv4 client, beside an IPv4 upstream that refuses and fails over to it.
TEST(DnsService, Ipv6UpstreamAnswersOverUdpAndTcp) {
  if (!has_ipv6_loopback()) GTEST_SKIP() << "no IPv6 loopback here";
  FakeUpstream up(/*v6=*/true);
  UniqueFd hole(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  sockaddr_in sa = loopback(0);
  ASSERT_EQ(::bind(hole.get(), reinterpret_cast<sockaddr*>(&sa), sizeof sa), 0);
  const std::uint16_t dead = port_of(hole.get());
  hole.reset();  // nothing listens there now: ICMP port unreachable
  DnsServiceOptions o = options({dead});
  o.upstreams.push_back(loopback_at(up.port(), true));
  auto svc = DnsService::start(std::move(o));
  ASSERT_TRUE(svc.ok()) << svc.error();
  const Bytes a = ask_udp((*svc)->port(), query("v6up.test", 1, 0x0611).build());
  ASSERT_FALSE(a.empty());
  EXPECT_EQ(id_of(a), 0x0611);
  EXPECT_EQ(a.back(), 9);
  const Bytes big = ask_udp((*svc)->port(), query("big.v6up.test", 16, 0x0612).build());
  ASSERT_FALSE(big.empty());
  EXPECT_EQ(id_of(big), 0x0612);
  EXPECT_EQ(up.udp_queries(), 2);
  EXPECT_EQ(up.tcp_queries(), 1);
  EXPECT_GE((*svc)->counters().get(dns::Counter::kUpstreamErrors), 1U);
}

// What the config's dns.upstream becomes: both families, port 53, unusable entries out.
TEST(DnsService, OptionsTakeBothFamiliesOfUpstreams) {
  config::ProfileConfig p;
  p.dns.upstream = {"1.1.1.1", "2606:4700::1111", "::1", "fe80::1", "dns.google", "fd00::53"};
  const DnsServiceOptions o = dns_service_options(p);
  std::vector<std::string> got;
  for (const auto& a : o.upstreams) got.push_back(a.to_string());
  EXPECT_EQ(got, (std::vector<std::string>{"1.1.1.1:53", "[2606:4700::1111]:53", "[::1]:53",
                                           "[fd00::53]:53"}));
}

TEST(DnsService, Ipv6SourcesOutsideTheAllowedNetworksGetNothing) {
  if (!has_ipv6_loopback()) GTEST_SKIP() << "no IPv6 loopback here";
  FakeUpstream up;
  // ::1 is not in the pool: dropped over UDP, and a TCP connection is closed at once.
  auto svc = DnsService::start(options6({up.port()}, "fd00:9::/64"));
  ASSERT_TRUE(svc.ok()) << svc.error();
  const std::uint16_t port = (*svc)->port();
  EXPECT_TRUE(ask_udp(port, query("x.test").build(), /*v6=*/true, 300).empty());
  EXPECT_TRUE(ask_tcp(port, {query("y.test").build()}, /*v6=*/true).empty());
  EXPECT_EQ((*svc)->counters().get(dns::Counter::kRefusedSource), 2U);
  EXPECT_EQ(up.udp_queries() + up.tcp_queries(), 0);
  // IPv4 loopback is still allowed on the IPv4 socket.
  EXPECT_FALSE(ask_udp(port, query("z.test").build()).empty());
}

TEST(DnsService, AnIpv6AddressTheHostDoesNotHoldIsAClearError) {
  if (!has_ipv6_loopback()) GTEST_SKIP() << "no IPv6 loopback here";
  FakeUpstream up;
  DnsServiceOptions o = options6({up.port()}, "::1/128");
  o.listen_ipv6 = config::Ipv6Addr::parse("2001:db8:ffff::53");  // documentation prefix
  auto svc = DnsService::start(std::move(o));
  ASSERT_FALSE(svc.ok());
  EXPECT_NE(svc.error().find("cannot bind udp [2001:db8:ffff::53]:"), std::string::npos)
      << svc.error();
}

}  // namespace
}  // namespace qeli::server
