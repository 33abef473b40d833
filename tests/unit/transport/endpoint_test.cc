#include "transport/endpoint.h"

#include <gtest/gtest.h>

namespace qeli::transport {
namespace {

TEST(Endpoint, ParsesHostPortForms) {
  auto a = parse_host_port("vpn.example.com:443");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->host, "vpn.example.com");
  EXPECT_EQ(a->port, 443);
  auto b = parse_host_port("[2001:db8::1]:8443");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->host, "2001:db8::1");
  EXPECT_EQ(b->port, 8443);
  for (const char* bad : {"host", "host:", "host:0", "host:65536", ":80", "host:8x", "[::1]80"}) {
    EXPECT_FALSE(parse_host_port(bad).ok()) << bad;
  }
}

TEST(Endpoint, Ipv4LiteralsAndLoopbackResolution) {
  std::uint32_t a = 0;
  ASSERT_TRUE(parse_ipv4("10.9.0.1", a));
  EXPECT_EQ(a, 0x0a090001U);
  EXPECT_EQ(ipv4_to_string(a), "10.9.0.1");
  EXPECT_FALSE(parse_ipv4("10.9.0", a));
  EXPECT_FALSE(parse_ipv4("10.9.0.256", a));
  // The whole view is the address: an embedded NUL (JSON "\u0000") or anything after the
  // address is refused, even though inet_pton would stop at the NUL and accept the rest.
  EXPECT_FALSE(parse_ipv4(std::string_view("10.200.0.2\0", 11), a));
  EXPECT_FALSE(parse_ipv4(std::string_view("10.200.0.2\0junk", 15), a));
  EXPECT_FALSE(parse_ipv4("10.200.0.2 ", a));
  EXPECT_TRUE(parse_ipv4(std::string_view("10.200.0.2\0", 10), a));
  auto r = resolve({"127.0.0.1", 80});
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->size(), 1U);
  EXPECT_EQ((*r)[0].to_string(), "127.0.0.1:80");
  // localhost: loopback answers only; with kIpv4First an IPv4 one (127/8) comes first.
  auto l = resolve({"localhost", 80}, Families::kIpv4First);
  ASSERT_TRUE(l.ok()) << l.error().message;
  for (const auto& e : *l) {
    EXPECT_TRUE(e.is_ipv4() ? (e.ipv4_host() >> 24) == 127U : e.ip_string() == "::1")
        << e.to_string();
  }
  if (l->back().is_ipv4()) {
    EXPECT_TRUE(l->front().is_ipv4());
  }
  auto v6 = resolve({"2001:db8::1", 443});
  ASSERT_TRUE(v6.ok());
  EXPECT_EQ((*v6)[0].to_string(), "[2001:db8::1]:443");
  // A definite answer (no such name under the reserved .invalid TLD, RFC 6761 §6.4) is
  // not worth retrying; it is not resolved through any network either.
  auto none = resolve({"no-such-host.invalid", 80});
  ASSERT_FALSE(none.ok());
  EXPECT_FALSE(none.error().message.empty());
}

}  // namespace
}  // namespace qeli::transport
