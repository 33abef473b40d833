// HostJournal without a kernel: records survive reopening, settled entries disappear,
// cleanup undoes newest first and keeps what failed, torn lines are ignored.
#include "sys/host_journal.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include "temp_dir.h"

namespace qeli::sys {
namespace {

using test::slurp;
using test::spit;
using test::TempDir;

Route route(const char* dst, const char* dev) {
  Route r;
  r.dst = *IpPrefix::parse(dst);
  r.dev = dev;
  return r;
}

// Records every undo; fails those whose description is listed in `fail_on`.
class RecordingUndo : public JournalUndo {
 public:
  std::vector<std::string> seen;
  std::vector<std::string> fail_on;
  std::vector<std::string> gone;  // answered with kNotFound
  HostStatus undo(const JournalEntry& e) override {
    const std::string d = *encode_journal_entry(e);
    seen.push_back(d);
    for (const auto& f : fail_on) {
      if (d == f) return host_fail(HostErrc::kNetlink, "refused");
    }
    for (const auto& g : gone) {
      if (d == g) return host_fail(HostErrc::kNotFound, "gone");
    }
    return {};
  }
};

TEST(HostJournal, EntriesRoundTripThroughText) {
  Route r = route("0.0.0.0/1", "qeli0");
  r.metric = 7;
  Route bh;
  bh.dst = *IpPrefix::parse("::/1");
  bh.type = RouteType::kBlackhole;
  Route gw = route("198.51.100.7/32", "eth0");
  gw.gateway = *IpAddress::parse("192.0.2.1");
  const std::vector<JournalEntry> entries = {
      RouteChange{r},
      RouteChange{bh},
      RouteChange{gw},
      NftTableChange{"inet", "qeli_ks_qeli0"},
      ResolvConfChange{"/etc/resolv.conf", "/var/lib/qeli/resolv.conf.backup"},
      SysctlChange{"net.ipv4.ip_forward", "0", "1"}};
  for (const JournalEntry& e : entries) {
    auto line = encode_journal_entry(e);
    ASSERT_TRUE(line.ok());
    auto back = decode_journal_entry(*line);
    ASSERT_TRUE(back.ok()) << *line;
    EXPECT_EQ(*encode_journal_entry(*back), *line);
    EXPECT_EQ(back->index(), e.index());
  }
  auto rc = decode_journal_entry(*encode_journal_entry(entries[2]));
  ASSERT_TRUE(rc.ok());
  const Route& g = std::get<RouteChange>(*rc).route;
  EXPECT_EQ(g.gateway->to_string(), "192.0.2.1");
  EXPECT_EQ(g.dev, "eth0");
  EXPECT_EQ(g.protocol, kQeliRouteProtocol);

  EXPECT_FALSE(encode_journal_entry(ResolvConfChange{"/etc/my resolv.conf", "/b"}).ok());
  for (const char* bad :
       {"", "route 254 113 unicast 10.0.0.0/8 - qeli0", "route x 113 unicast ::/0 - - 0",
        "route 254 300 unicast ::/0 - - 0", "route 254 113 anycast ::/0 - - 0", "nft inet",
        "sysctl a b", "bogus 1 2"}) {
    EXPECT_FALSE(decode_journal_entry(bad).ok()) << bad;
  }
}

TEST(HostJournal, PendingSurvivesReopenAndSettleRemoves) {
  TempDir dir;
  const std::string path = dir / "state/journal-qeli0.log";
  std::uint64_t a = 0, b = 0, c = 0;
  {
    auto j = HostJournal::open(path);
    ASSERT_TRUE(j.ok()) << j.error().detail;
    a = *j->record(RouteChange{route("10.0.0.0/8", "qeli0")});
    b = *j->record(NftTableChange{"inet", "qeli_ks_qeli0"});
    c = *j->record(SysctlChange{"net.ipv4.ip_forward", "0", "1"});
    ASSERT_TRUE(j->settle(b).ok());
  }
  EXPECT_LT(a, b);
  EXPECT_LT(b, c);
  auto j = HostJournal::open(path);
  ASSERT_TRUE(j.ok());
  auto p = j->pending();
  ASSERT_TRUE(p.ok());
  ASSERT_EQ(p->size(), 2U);
  EXPECT_EQ((*p)[0].id, a);
  EXPECT_EQ((*p)[1].id, c);
  // Ids keep growing after a reopen: a new record never reuses a settled id.
  auto d = j->record(NftTableChange{"inet", "qeli_nat_x"});
  ASSERT_TRUE(d.ok());
  EXPECT_GT(*d, c);
}

TEST(HostJournal, CleanupUndoesNewestFirstAndKeepsFailures) {
  TempDir dir;
  const std::string path = dir / "journal.log";
  auto j = HostJournal::open(path);
  ASSERT_TRUE(j.ok());
  const JournalEntry e1 = RouteChange{route("10.0.0.0/8", "qeli0")};
  const JournalEntry e2 = NftTableChange{"inet", "qeli_ks_qeli0"};
  const JournalEntry e3 = ResolvConfChange{"/r", "/b"};
  const JournalEntry e4 = SysctlChange{"net.ipv4.ip_forward", "0", "1"};
  for (const auto& e : {e1, e2, e3, e4}) ASSERT_TRUE(j->record(e).ok());

  RecordingUndo undo;
  undo.fail_on = {*encode_journal_entry(e2)};
  undo.gone = {*encode_journal_entry(e3)};
  auto rep = j->cleanup(undo);
  ASSERT_TRUE(rep.ok());
  const std::vector<std::string> want = {*encode_journal_entry(e4), *encode_journal_entry(e3),
                                         *encode_journal_entry(e2), *encode_journal_entry(e1)};
  EXPECT_EQ(undo.seen, want);
  EXPECT_EQ(rep->undone, 3U);  // kNotFound counts as undone
  ASSERT_EQ(rep->failures.size(), 1U);
  auto p = j->pending();
  ASSERT_TRUE(p.ok());
  ASSERT_EQ(p->size(), 1U);
  EXPECT_EQ(*encode_journal_entry((*p)[0].entry), *encode_journal_entry(e2));

  // A second attempt that succeeds empties the journal file back to its header.
  RecordingUndo ok;
  auto rep2 = j->cleanup(ok);
  ASSERT_TRUE(rep2.ok());
  EXPECT_EQ(rep2->undone, 1U);
  EXPECT_TRUE(rep2->failures.empty());
  EXPECT_EQ(slurp(path), "qeli-host-journal 1\n");
}

TEST(HostJournal, TornLastLineAndGarbageAreSkipped) {
  TempDir dir;
  const std::string path = dir / "journal.log";
  spit(path,
       "qeli-host-journal 1\n+1 nft inet qeli_ks_a\nnonsense\n+2 nft inet qeli_ks_b\n+3 nft in");
  auto j = HostJournal::open(path);
  ASSERT_TRUE(j.ok()) << j.error().detail;
  std::size_t skipped = 0;
  auto p = j->pending(&skipped);
  ASSERT_TRUE(p.ok());
  ASSERT_EQ(p->size(), 2U);
  EXPECT_EQ(skipped, 1U);
  EXPECT_EQ(slurp(path).find("+3 nft in\n"), std::string::npos);
  // The torn record is cut off; the next record starts on its own line.
  auto id = j->record(NftTableChange{"inet", "qeli_ks_c"});
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(*id, 3U);  // the torn "+3" was never a record; ids continue from 2
  auto p2 = j->pending();
  ASSERT_TRUE(p2.ok());
  ASSERT_EQ(p2->size(), 3U);
  EXPECT_EQ(std::get<NftTableChange>((*p2)[2].entry).name, "qeli_ks_c");
}

TEST(HostJournal, ForeignFileAndSecondOwnerAreRefused) {
  TempDir dir;
  spit(dir / "other", "hello\n");
  auto bad = HostJournal::open(dir / "other");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, HostErrc::kCorrupt);

  auto j = HostJournal::open(dir / "j.log");
  ASSERT_TRUE(j.ok());
  // flock is per open file description: a second open in this process conflicts too.
  auto second = HostJournal::open(dir / "j.log");
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error().code, HostErrc::kExists);
}

TEST(HostJournal, RecordIsDurableBeforeAKill9) {
  TempDir dir;
  const std::string path = dir / "j.log";
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    auto j = HostJournal::open(path);
    if (!j.ok() || !j->record(NftTableChange{"inet", "qeli_ks_x"}).ok()) ::_exit(1);
    ::raise(SIGKILL);  // no destructors, no flush: only what record() made durable
    ::_exit(2);
  }
  int st = 0;
  ASSERT_EQ(::waitpid(pid, &st, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(st));
  auto j = HostJournal::open(path);  // the dead child's lock is gone
  ASSERT_TRUE(j.ok()) << j.error().detail;
  auto p = j->pending();
  ASSERT_TRUE(p.ok());
  ASSERT_EQ(p->size(), 1U);
  EXPECT_EQ(std::get<NftTableChange>((*p)[0].entry).name, "qeli_ks_x");
}

}  // namespace
}  // namespace qeli::sys
