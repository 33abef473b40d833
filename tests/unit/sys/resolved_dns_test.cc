// systemd-resolved detection on fake runtime dirs, the resolvectl commands, and the
// resolv.conf fallback through the LinkDns interface (resolved is not running here).
#include "sys/resolved_dns.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>

#include "temp_dir.h"

namespace qeli::sys {
namespace {

using test::slurp;
using test::spit;
using test::TempDir;

// A listening unix socket at `path` (what resolved's varlink endpoint looks like).
int listen_at(const std::string& path) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un sa{};
  sa.sun_family = AF_UNIX;
  std::memcpy(sa.sun_path, path.c_str(), path.size() + 1);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0 || ::listen(fd, 4) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

TEST(ResolvedDns, ProbeWithoutResolvedFallsBackToResolvConf) {
  TempDir dir;
  spit(dir / "resolv.conf", "nameserver 192.0.2.53\n");
  const ResolvedProbePaths paths{dir / "run-resolve", dir / "resolv.conf"};
  const ResolvedStatus s = probe_resolved(paths);
  EXPECT_FALSE(s.running);
  EXPECT_FALSE(s.resolv_conf_is_stub);
  EXPECT_EQ(choose_dns_backend(s), DnsBackend::kResolvConf);
}

TEST(ResolvedDns, ProbeSeesARunningResolvedAndItsStub) {
  TempDir dir;
  ASSERT_EQ(::mkdir((dir / "resolve").c_str(), 0755), 0);
  const int fd = listen_at(dir / "resolve/io.systemd.Resolve");
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::symlink("../run/systemd/resolve/stub-resolv.conf", (dir / "resolv.conf").c_str()), 0);
  const ResolvedStatus s = probe_resolved({dir / "resolve", dir / "resolv.conf"});
  EXPECT_TRUE(s.running);
  EXPECT_TRUE(s.resolv_conf_is_stub);
  EXPECT_EQ(choose_dns_backend(s), DnsBackend::kResolved);
  // resolved runs, but libc reads a plain resolv.conf: per-link DNS would be ignored.
  ASSERT_EQ(::unlink((dir / "resolv.conf").c_str()), 0);
  spit(dir / "resolv.conf", "nameserver 192.0.2.53\n");
  const ResolvedStatus s2 = probe_resolved({dir / "resolve", dir / "resolv.conf"});
  EXPECT_TRUE(s2.running);
  EXPECT_FALSE(s2.resolv_conf_is_stub);
  EXPECT_EQ(choose_dns_backend(s2), DnsBackend::kResolvConf);
  ::close(fd);
  // A socket file nobody listens on is not a running resolved.
  EXPECT_FALSE(probe_resolved({dir / "resolve", dir / "resolv.conf"}).running);
}

TEST(ResolvedDns, ResolvectlCommands) {
  DnsSettings d;
  d.servers = {*IpAddress::parse("10.8.0.1")};
  d.search = {"corp.example"};
  auto full = resolvectl_apply_commands("qeli0", d, true);
  ASSERT_TRUE(full.ok());
  const std::vector<std::vector<std::string>> want = {{"dns", "qeli0", "10.8.0.1"},
                                                      {"domain", "qeli0", "~.", "corp.example"},
                                                      {"default-route", "qeli0", "yes"}};
  EXPECT_EQ(*full, want);
  auto split = resolvectl_apply_commands("qeli0", d, false);
  ASSERT_TRUE(split.ok());
  EXPECT_EQ((*split)[1], (std::vector<std::string>{"domain", "qeli0", "corp.example"}));
  EXPECT_FALSE(resolvectl_apply_commands("qeli0;reboot", d, true).ok());
  EXPECT_FALSE(resolvectl_apply_commands("qeli0", DnsSettings{}, true).ok());
}

TEST(ResolvedDns, MissingResolvectlIsAnError) {
  ResolvectlLinkDns dns("/nonexistent/resolvectl");
  DnsSettings d;
  d.servers = {*IpAddress::parse("10.8.0.1")};
  auto r = dns.apply("qeli0", d, true);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, HostErrc::kNotFound);
}

TEST(ResolvedDns, FallbackLinkDnsTakesOverAndRestoresResolvConf) {
  TempDir dir;
  const std::string original = "nameserver 192.0.2.53\n";
  spit(dir / "resolv.conf", original);
  ResolvConfLinkDns dns({dir / "resolv.conf", dir / "backup"});
  LinkDns& link = dns;
  DnsSettings d;
  d.servers = {*IpAddress::parse("10.8.0.1")};
  ASSERT_TRUE(link.apply("qeli0", d, true).ok());
  EXPECT_NE(slurp(dir / "resolv.conf").find("nameserver 10.8.0.1\n"), std::string::npos);
  ASSERT_TRUE(link.revert("qeli0").ok());
  EXPECT_EQ(slurp(dir / "resolv.conf"), original);
}

}  // namespace
}  // namespace qeli::sys
