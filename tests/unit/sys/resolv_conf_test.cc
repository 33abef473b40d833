// ResolvConf on temporary paths (never the host's /etc/resolv.conf): the original comes
// back byte for byte after a clean stop, after a kill -9 (a real SIGKILLed child) and
// for a symlink; a second take-over never backs up our own file.
#include "sys/resolv_conf.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include "sys/file_util.h"
#include "temp_dir.h"

namespace qeli::sys {
namespace {

using test::slurp;
using test::spit;
using test::TempDir;

// Deliberately odd: no trailing newline, a comment, tabs, CRLF.
const std::string kOriginal =
    "# from DHCP\r\nnameserver 192.0.2.53\n\tsearch corp.example\noptions ndots:2";

DnsSettings tunnel_dns() {
  DnsSettings d;
  d.servers = {*IpAddress::parse("10.8.0.1"), *IpAddress::parse("fd08::1")};
  d.search = {"vpn.example"};
  return d;
}

mode_t mode_of(const std::string& p) {
  struct stat st {};
  EXPECT_EQ(::lstat(p.c_str(), &st), 0) << p;
  return st.st_mode & 07777;
}

// take_over in a child that is then SIGKILLed: no destructor, no restore.
void take_over_and_die(const ResolvConfPaths& paths) {
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ResolvConf rc(paths);
    if (!rc.take_over(tunnel_dns(), "qeli0").ok()) ::_exit(1);
    ::raise(SIGKILL);
    ::_exit(2);
  }
  int st = 0;
  ASSERT_EQ(::waitpid(pid, &st, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(st)) << "child exit " << WEXITSTATUS(st);
}

TEST(ResolvConf, RenderedFileIsMarkedAndValidated) {
  auto s = render_resolv_conf(tunnel_dns(), "qeli0");
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(is_qeli_resolv_conf(*s));
  EXPECT_NE(s->find("\nnameserver 10.8.0.1\nnameserver fd08::1\nsearch vpn.example\n"),
            std::string::npos);
  EXPECT_FALSE(is_qeli_resolv_conf(kOriginal));
  EXPECT_FALSE(render_resolv_conf(DnsSettings{}, "qeli0").ok());  // no silent fallback
  DnsSettings bad = tunnel_dns();
  bad.search = {"x\nnameserver 1.1.1.1"};
  EXPECT_FALSE(render_resolv_conf(bad, "qeli0").ok());
  EXPECT_FALSE(render_resolv_conf(tunnel_dns(), "q\nnameserver 1.1.1.1").ok());
}

TEST(ResolvConf, StartKill9RecoverStopIsByteIdentical) {
  TempDir dir;
  const ResolvConfPaths paths{dir / "resolv.conf", dir / "state/resolv.conf.backup"};
  spit(paths.resolv_conf, kOriginal);
  ASSERT_EQ(::chmod(paths.resolv_conf.c_str(), 0640), 0);

  take_over_and_die(paths);
  EXPECT_TRUE(is_qeli_resolv_conf(slurp(paths.resolv_conf)));
  EXPECT_EQ(mode_of(paths.resolv_conf), 0640U);

  // Next start: recover, then a normal take-over and a clean stop.
  ResolvConf rc(paths);
  auto rec = rc.recover();
  ASSERT_TRUE(rec.ok()) << rec.error().detail;
  EXPECT_EQ(*rec, ResolvConf::Recovery::kRestored);
  EXPECT_EQ(slurp(paths.resolv_conf), kOriginal);
  EXPECT_EQ(mode_of(paths.resolv_conf), 0640U);
  EXPECT_EQ(::access(paths.backup.c_str(), F_OK), -1);

  ASSERT_TRUE(rc.take_over(tunnel_dns(), "qeli0").ok());
  EXPECT_NE(slurp(paths.resolv_conf), kOriginal);
  auto stop = rc.restore();
  ASSERT_TRUE(stop.ok());
  EXPECT_EQ(*stop, ResolvConf::Recovery::kRestored);
  EXPECT_EQ(slurp(paths.resolv_conf), kOriginal);
  EXPECT_EQ(mode_of(paths.resolv_conf), 0640U);
  // Nothing left: a further recover has nothing to do.
  EXPECT_EQ(*rc.recover(), ResolvConf::Recovery::kNothingToDo);
  EXPECT_EQ(slurp(paths.resolv_conf), kOriginal);
}

TEST(ResolvConf, SecondStartAfterCrashNeverBacksUpOurOwnFile) {
  TempDir dir;
  const ResolvConfPaths paths{dir / "resolv.conf", dir / "resolv.conf.backup"};
  spit(paths.resolv_conf, kOriginal);
  take_over_and_die(paths);
  // A start that forgets recover() and takes over again: the backup must stay the original.
  take_over_and_die(paths);
  ResolvConf rc(paths);
  ASSERT_TRUE(rc.take_over(tunnel_dns(), "qeli0").ok());
  ASSERT_TRUE(rc.restore().ok());
  EXPECT_EQ(slurp(paths.resolv_conf), kOriginal);
}

TEST(ResolvConf, SymlinkStaysASymlink) {
  TempDir dir;
  ::mkdir((dir / "run").c_str(), 0755);
  const std::string stub = dir / "run/stub-resolv.conf";
  spit(stub, "nameserver 127.0.0.53\n");
  const ResolvConfPaths paths{dir / "resolv.conf", dir / "resolv.conf.backup"};
  ASSERT_EQ(::symlink("run/stub-resolv.conf", paths.resolv_conf.c_str()), 0);

  take_over_and_die(paths);
  auto st = inspect_path(paths.resolv_conf);
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st->kind, PathState::Kind::kFile);        // ours replaced the link...
  EXPECT_EQ(slurp(stub), "nameserver 127.0.0.53\n");  // ...and never wrote through it

  ResolvConf rc(paths);
  ASSERT_EQ(*rc.recover(), ResolvConf::Recovery::kRestored);
  EXPECT_EQ(*read_link(paths.resolv_conf), "run/stub-resolv.conf");

  ASSERT_TRUE(rc.take_over(tunnel_dns(), "qeli0").ok());
  ASSERT_TRUE(rc.restore().ok());
  auto st2 = inspect_path(paths.resolv_conf);
  ASSERT_TRUE(st2.ok());
  EXPECT_EQ(st2->kind, PathState::Kind::kSymlink);
  EXPECT_EQ(*read_link(paths.resolv_conf), "run/stub-resolv.conf");
  EXPECT_EQ(slurp(stub), "nameserver 127.0.0.53\n");
}

TEST(ResolvConf, AbsentFileComesBackAbsent) {
  TempDir dir;
  const ResolvConfPaths paths{dir / "resolv.conf", dir / "resolv.conf.backup"};
  ResolvConf rc(paths);
  ASSERT_TRUE(rc.take_over(tunnel_dns(), "qeli0").ok());
  EXPECT_TRUE(is_qeli_resolv_conf(slurp(paths.resolv_conf)));
  ASSERT_TRUE(rc.restore().ok());
  EXPECT_EQ(::access(paths.resolv_conf.c_str(), F_OK), -1);
}

TEST(ResolvConf, ForeignReplacementWinsOverAStaleBackup) {
  TempDir dir;
  const ResolvConfPaths paths{dir / "resolv.conf", dir / "resolv.conf.backup"};
  spit(paths.resolv_conf, kOriginal);
  take_over_and_die(paths);
  // NetworkManager rewrites resolv.conf before our next start.
  spit(paths.resolv_conf, "nameserver 203.0.113.1\n");
  ResolvConf rc(paths);
  ASSERT_EQ(*rc.recover(), ResolvConf::Recovery::kKeptForeign);
  EXPECT_EQ(slurp(paths.resolv_conf), "nameserver 203.0.113.1\n");
  EXPECT_EQ(::access(paths.backup.c_str(), F_OK), -1);
}

TEST(ResolvConf, OursWithoutBackupIsAnErrorNotANewOriginal) {
  TempDir dir;
  const ResolvConfPaths paths{dir / "resolv.conf", dir / "resolv.conf.backup"};
  spit(paths.resolv_conf, kOriginal);
  take_over_and_die(paths);
  ASSERT_EQ(::unlink(paths.backup.c_str()), 0);
  const std::string ours = slurp(paths.resolv_conf);
  ResolvConf rc(paths);
  auto r = rc.take_over(tunnel_dns(), "qeli0");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, HostErrc::kCorrupt);
  EXPECT_EQ(::access(paths.backup.c_str(), F_OK), -1);
  EXPECT_EQ(slurp(paths.resolv_conf), ours);
}

TEST(ResolvConf, CorruptBackupIsReportedAndLeftAlone) {
  TempDir dir;
  const ResolvConfPaths paths{dir / "resolv.conf", dir / "resolv.conf.backup"};
  spit(paths.resolv_conf, kOriginal);
  spit(paths.backup, "garbage");
  ResolvConf rc(paths);
  auto r = rc.recover();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, HostErrc::kCorrupt);
  EXPECT_EQ(slurp(paths.backup), "garbage");
  EXPECT_EQ(slurp(paths.resolv_conf), kOriginal);
}

}  // namespace
}  // namespace qeli::sys
