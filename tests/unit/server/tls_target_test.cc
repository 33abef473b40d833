// TlsTarget (server/tls_target.h): a reload probes the target again at once, not after
// the next scheduled retry; a name no hello can carry is an error, never an abort.
#include "server/tls_target.h"

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <gtest/gtest.h>

#include "crypto/random.h"
#include "transport/tcp.h"
#include "transport/tls_target_probe.h"

namespace qeli::server {
namespace {

// Accepts and closes one connection; true if one came within `wait`.
bool accept_one(int listener, std::chrono::milliseconds wait) {
  pollfd p{listener, POLLIN, 0};
  if (::poll(&p, 1, static_cast<int>(wait.count())) != 1) return false;
  transport::UniqueFd c(::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC));
  return c.valid();
}

TEST(TlsTarget, RefreshNowProbesAgainAtOnce) {
  auto l = transport::tcp_listen(transport::SockAddr::ipv4(0x7f000001, 0));
  ASSERT_TRUE(l.ok());
  sockaddr_in sa{};
  socklen_t len = sizeof(sa);
  ::getsockname(l->get(), reinterpret_cast<sockaddr*>(&sa), &len);

  TlsTarget::Options o;
  o.profile = "t";
  o.host = "127.0.0.1";
  o.port = ntohs(sa.sin_port);
  o.sni = "www.example.com";
  o.timeout = std::chrono::milliseconds(500);
  o.refresh = std::chrono::hours(1);  // the next retry would be a minute away
  TlsTarget t(o);
  // The first probe meets a peer that closes: the fallback shape answers.
  std::thread probe([&] { t.start(); });
  EXPECT_TRUE(accept_one(l->get(), std::chrono::seconds(5)));
  probe.join();
  ASSERT_NE(t.current(), nullptr);
  EXPECT_NE(t.describe().find("fallback"), std::string::npos) << t.describe();

  EXPECT_FALSE(accept_one(l->get(), std::chrono::milliseconds(200)));  // no retry yet
  t.refresh_now();
  EXPECT_TRUE(accept_one(l->get(), std::chrono::seconds(5)));
  t.stop();
}

TEST(TlsTarget, AnOverlongServerNameIsAProbeErrorNotAnAbort) {
  transport::TargetProbeConfig pc;
  pc.host = "127.0.0.1";
  pc.port = 9;
  pc.sni = std::string(300, 'a');
  auto r = transport::probe_target(pc, crypto::system_rng());
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("server name"), std::string::npos) << r.error();
}

TEST(TlsTarget, LocalAddressesAreRecognised) {
  using transport::SockAddr;
  EXPECT_TRUE(transport::is_local_address(SockAddr::ipv4(0x7f000001, 443)));  // 127.0.0.1
  EXPECT_TRUE(transport::is_local_address(SockAddr::ipv4(0x7f000102, 443)));  // all of 127/8
  EXPECT_TRUE(transport::is_local_address(SockAddr::ipv4(0, 443)));
  EXPECT_FALSE(transport::is_local_address(SockAddr::ipv4(0xc0000201, 443)));  // TEST-NET-1
  EXPECT_TRUE(transport::is_local_address(*SockAddr::parse_ip("::", 443)));
  EXPECT_FALSE(transport::is_local_address(*SockAddr::parse_ip("2001:db8::1", 443)));
  EXPECT_FALSE(transport::is_local_address(SockAddr{}));
}

}  // namespace
}  // namespace qeli::server
