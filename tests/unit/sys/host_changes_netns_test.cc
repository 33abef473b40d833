// The journal's promise on a real host (a namespace): a process that changed routes,
// nftables, resolv.conf and a sysctl and was then SIGKILLed (between two changes) is
// cleaned up by the next run — exactly what it created goes, everything else stays.
//
//   netns hc: h0 192.0.2.2/24 <-veth-> h1 (plays the TUN); a foreign route 10.30.0.0/16
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "netns_fixture.h"
#include "sys/host_undo.h"
#include "sys/sysctl.h"
#include "temp_dir.h"

namespace qeli::sys {
namespace {

using test::Netns;
using test::slurp;
using test::spit;
using test::TempDir;

const std::string kOriginalResolv = "nameserver 192.0.2.53\noptions edns0\n";

Route make(const char* dst, const char* dev, RouteType type = RouteType::kUnicast) {
  Route r;
  r.dst = *IpPrefix::parse(dst);
  if (dev != nullptr) r.dev = dev;
  r.type = type;
  return r;
}

class HostChangesNetns : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(ns_.ok());
    for (const char* c :
         {"ip link add h0 type veth peer name h1", "ip link set h0 up", "ip link set h1 up",
          "ip addr add 192.0.2.2/24 dev h0", "ip addr add fd00:2::2/64 dev h0 nodad",
          "ip route add 10.30.0.0/16 dev h0"}) {
      auto r = ns_.exec(c);
      ASSERT_EQ(r.status, 0) << c << ": " << r.out;
    }
    spit(dir_ / "resolv.conf", kOriginalResolv);
  }

  bool has_route(const char* family, const std::string& dst) {
    auto j = nlohmann::json::parse(
        ns_.exec(std::string("ip -j ") + family + " route show table main").out, nullptr, false);
    for (const auto& e : j) {
      if (e.value("dst", "") == dst) return true;
    }
    return false;
  }
  bool has_table(const std::string& t) { return ns_.exec("nft list table " + t).status == 0; }

  ResolvConfPaths resolv_paths() const { return {dir_ / "resolv.conf", dir_ / "resolv.backup"}; }

  Netns ns_{"hc"};
  TempDir dir_;
};

TEST_F(HostChangesNetns, CleanupAfterKill9RemovesExactlyWhatWasCreated) {
  const std::string journal_path = dir_ / "state/journal-h1.log";
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    // The "client": single-threaded after fork, so setns() moves the whole process.
    if (!ns_.enter()) ::_exit(10);
    auto journal = HostJournal::open(journal_path);
    auto routes = RouteTable::open();
    auto nft = NftContext::open();
    if (!journal.ok() || !routes.ok() || !nft.ok()) ::_exit(11);
    HostChanges host(*journal, *routes, *nft);
    ResolvConf rc(resolv_paths());
    KillSwitchSpec ks;
    ks.tun = "h1";
    ks.servers = {*IpAddress::parse("192.0.2.1")};
    if (!host.add_route(make("10.10.0.0/16", "h0")).ok()) ::_exit(12);
    if (!host.add_route(make("::/1", nullptr, RouteType::kUnreachable)).ok()) ::_exit(13);
    // Already there (someone else's): refused and not journaled.
    if (host.add_route(make("10.30.0.0/16", "h0")).ok()) ::_exit(14);
    if (!host.engage_kill_switch(ks).ok()) ::_exit(15);
    DnsSettings dns;
    dns.servers = {*IpAddress::parse("10.8.0.1")};
    if (!host.take_over_dns(rc, dns, "h1").ok()) ::_exit(16);
    auto fwd = host.enable_forwarding(IpFamily::kV4);
    if (!fwd.ok() || *fwd == 0) ::_exit(17);
    // Killed between two changes: the next one is journaled but never made.
    if (!journal->record(RouteChange{make("10.40.0.0/16", "h0")}).ok()) ::_exit(18);
    ::raise(SIGKILL);
    ::_exit(19);
  }
  int st = 0;
  ASSERT_EQ(::waitpid(pid, &st, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(st)) << "child exit code " << WEXITSTATUS(st);

  // The crash left everything in place.
  EXPECT_TRUE(has_route("-4", "10.10.0.0/16"));
  EXPECT_TRUE(has_route("-6", "::/1"));
  EXPECT_TRUE(has_table("inet qeli_ks_h1"));
  EXPECT_TRUE(is_qeli_resolv_conf(slurp(dir_ / "resolv.conf")));
  EXPECT_EQ(ns_.exec("cat /proc/sys/net/ipv4/ip_forward").out, "1\n");

  // The next run cleans up from the journal.
  auto report = ns_.run([&]() -> HostResult<CleanupReport> {
    auto journal = HostJournal::open(journal_path);
    auto routes = RouteTable::open();
    auto nft = NftContext::open();
    if (!journal.ok() || !routes.ok() || !nft.ok()) return host_fail(HostErrc::kIo, "open");
    HostChanges host(*journal, *routes, *nft);
    return host.revert_all();
  });
  ASSERT_TRUE(report.ok()) << report.error().detail;
  EXPECT_EQ(report->undone, 6U);  // 2 routes, table, resolv.conf, sysctl, the unmade route
  EXPECT_TRUE(report->failures.empty());

  EXPECT_FALSE(has_route("-4", "10.10.0.0/16"));
  EXPECT_FALSE(has_route("-6", "::/1"));
  EXPECT_FALSE(has_table("inet qeli_ks_h1"));
  EXPECT_EQ(slurp(dir_ / "resolv.conf"), kOriginalResolv);
  EXPECT_EQ(ns_.exec("cat /proc/sys/net/ipv4/ip_forward").out, "0\n");
  // Not ours, so still there.
  EXPECT_TRUE(has_route("-4", "10.30.0.0/16"));
  EXPECT_TRUE(has_route("-4", "192.0.2.0/24"));
  EXPECT_EQ(slurp(journal_path), "qeli-host-journal 1\n");
}

TEST_F(HostChangesNetns, RestartAfterCrashKeepsTheHostLockedThroughout) {
  const std::string journal_path = dir_ / "j.log";
  KillSwitchSpec ks;
  ks.tun = "h1";
  ks.servers = {*IpAddress::parse("192.0.2.1")};
  auto start = [&](bool first) {
    return ns_.run([&]() -> bool {
      auto journal = HostJournal::open(journal_path);
      auto routes = RouteTable::open();
      auto nft = NftContext::open();
      if (!journal.ok() || !routes.ok() || !nft.ok()) return false;
      HostChanges host(*journal, *routes, *nft);
      if (!first) {
        auto rep = host.revert_all_keeping_kill_switch("h1");
        if (!rep.ok() || !rep->failures.empty()) return false;
        // Between cleanup and the new engage the old table still blocks.
        if (!nft->table_exists("inet", "qeli_ks_h1").value()) return false;
      }
      return host.engage_kill_switch(ks).ok() && host.add_route(make("10.10.0.0/16", "h0")).ok();
      // (no clean stop: the journal stays pending, like a crash)
    });
  };
  ASSERT_TRUE(start(true));
  ASSERT_TRUE(start(false));  // the crashed run's route is removed, then re-added
  EXPECT_TRUE(has_table("inet qeli_ks_h1"));
  EXPECT_TRUE(has_route("-4", "10.10.0.0/16"));
  // A clean stop of the second run removes everything, the table included.
  auto rep = ns_.run([&]() -> HostResult<CleanupReport> {
    auto journal = HostJournal::open(journal_path);
    auto routes = RouteTable::open();
    auto nft = NftContext::open();
    if (!journal.ok() || !routes.ok() || !nft.ok()) return host_fail(HostErrc::kIo, "open");
    return HostChanges(*journal, *routes, *nft).revert_all();
  });
  ASSERT_TRUE(rep.ok());
  EXPECT_EQ(rep->undone, 2U);
  EXPECT_FALSE(has_table("inet qeli_ks_h1"));
  EXPECT_FALSE(has_route("-4", "10.10.0.0/16"));
}

TEST_F(HostChangesNetns, RevertOneChangeThenTheRest) {
  auto ok = ns_.run([&]() -> bool {
    auto journal = HostJournal::open(dir_ / "j.log");
    auto routes = RouteTable::open();
    auto nft = NftContext::open();
    if (!journal.ok() || !routes.ok() || !nft.ok()) return false;
    HostChanges host(*journal, *routes, *nft);
    auto a = host.add_route(make("10.10.0.0/16", "h0"));
    auto b = host.add_route(make("10.11.0.0/16", "h0"));
    auto f = host.enable_forwarding(IpFamily::kV4);
    if (!a.ok() || !b.ok() || !f.ok()) return false;
    // A route withdrawn during the session (e.g. new pushed routes after a reconnect).
    if (!host.revert(*a).ok()) return false;
    if (host.revert(*a).error().code != HostErrc::kNotFound) return false;  // settled
    auto rep = host.revert_all();
    return rep.ok() && rep->undone == 2 && rep->failures.empty();
  });
  EXPECT_TRUE(ok);
  EXPECT_FALSE(has_route("-4", "10.10.0.0/16"));
  EXPECT_FALSE(has_route("-4", "10.11.0.0/16"));
  EXPECT_EQ(ns_.exec("cat /proc/sys/net/ipv4/ip_forward").out, "0\n");
}

TEST_F(HostChangesNetns, SysctlChangedByOthersSinceIsLeftAlone) {
  const std::string key = "net.ipv4.conf.h0.rp_filter";
  const std::string file = "/proc/sys/net/ipv4/conf/h0/rp_filter";
  auto run = [&](bool admin_changes_it) {
    return ns_.run([&]() -> bool {
      std::remove((dir_ / "s.log").c_str());
      auto journal = HostJournal::open(dir_ / "s.log");
      if (!journal.ok() || !write_sysctl(key, "0").ok()) return false;
      if (!journal->record(SysctlChange{key, "0", "1"}).ok()) return false;
      if (!write_sysctl(key, "1").ok()) return false;
      if (admin_changes_it && !write_sysctl(key, "2").ok()) return false;
      SystemUndo undo(nullptr, nullptr);
      auto rep = journal->cleanup(undo);
      return rep.ok() && rep->undone == 1;
    });
  };
  ASSERT_TRUE(run(false));
  EXPECT_EQ(ns_.exec("cat " + file).out, "0\n");  // still ours: put back
  ASSERT_TRUE(run(true));
  EXPECT_EQ(ns_.exec("cat " + file).out, "2\n");  // the admin's value wins
}

// Containers bind-mount /etc/resolv.conf: rename() onto it fails with EBUSY, so the
// take-over and the restore rewrite it in place. Run in a child with a private mount
// namespace, so the bind mount never exists on the host.
TEST(ResolvConfBindMount, TakeOverAndRestoreInPlace) {
  TempDir dir;
  spit(dir / "source", kOriginalResolv);
  spit(dir / "resolv.conf", "placeholder\n");
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    if (::unshare(CLONE_NEWNS) != 0) ::_exit(10);
    if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) ::_exit(11);
    if (::mount((dir / "source").c_str(), (dir / "resolv.conf").c_str(), nullptr, MS_BIND,
                nullptr) != 0) {
      ::_exit(12);
    }
    if (slurp(dir / "resolv.conf") != kOriginalResolv) ::_exit(13);
    ResolvConf rc({dir / "resolv.conf", dir / "backup"});
    DnsSettings dns;
    dns.servers = {*IpAddress::parse("10.8.0.1")};
    if (!rc.take_over(dns, "qeli0").ok()) ::_exit(14);
    if (!is_qeli_resolv_conf(slurp(dir / "source"))) ::_exit(15);  // written through
    auto back = rc.restore();
    if (!back.ok() || *back != ResolvConf::Recovery::kRestored) ::_exit(16);
    if (slurp(dir / "resolv.conf") != kOriginalResolv) ::_exit(17);
    ::_exit(0);
  }
  int st = 0;
  ASSERT_EQ(::waitpid(pid, &st, 0), pid);
  ASSERT_TRUE(WIFEXITED(st));
  EXPECT_EQ(WEXITSTATUS(st), 0);
  EXPECT_EQ(slurp(dir / "source"), kOriginalResolv);
}

}  // namespace
}  // namespace qeli::sys
