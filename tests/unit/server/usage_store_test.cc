// The SQLite usage store and TrafficAccounts over it: totals survive a reopen (a server
// restart), reset forgets one user, limits come from the user or its group, set-bandwidth
// overrides live and survives a reload.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

#include "server/traffic_accounts.h"
#include "server/usage_store.h"

namespace qeli::server {
namespace {

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    char tmpl[] = "/tmp/qeli-usage-XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
};

UserSnapshot users() {
  UserSnapshot s;
  config::UserConfig a;
  a.name = "alice";
  a.bandwidth_limit_mbps = 5;
  a.data_limit_gb = 0.1;
  config::UserConfig b;
  b.name = "bob";
  b.group = "slow";
  s.users = {a, b};
  config::GroupConfig g;
  g.name = "slow";
  g.bandwidth_limit_mbps = 2;
  s.groups = {g};
  return s;
}

TEST(SqliteUsageStore, TotalsSurviveAReopenAndResetForgetsOneUser) {
  TempDir d;
  const std::string db = (d.path / "usage.db").string();
  {
    auto s = open_sqlite_usage_store(db);
    ASSERT_TRUE(s.ok()) << s.error();
    ASSERT_TRUE((*s)->save({{"alice", 100, 7, 0}, {"bob", 5, 6, 0}}).ok());
    ASSERT_TRUE((*s)->save({{"alice", 150, 9, 0}}).ok());  // absolute, not added
  }
  struct stat st {};
  ASSERT_EQ(::stat(db.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600U);
  auto s = open_sqlite_usage_store(db);
  ASSERT_TRUE(s.ok());
  auto rows = (*s)->load();
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 2U);
  EXPECT_EQ((*rows)[0].user, "alice");
  EXPECT_EQ((*rows)[0].down_bytes, 150U);
  EXPECT_EQ((*rows)[0].up_bytes, 9U);
  EXPECT_GT((*rows)[0].updated_unix, 0);
  ASSERT_TRUE((*s)->reset("alice").ok());
  rows = (*s)->load();
  ASSERT_EQ(rows->size(), 1U);
  EXPECT_EQ((*rows)[0].user, "bob");
}

TEST(SqliteUsageStore, AnUnwritablePathIsAnError) {
  auto s = open_sqlite_usage_store("/nonexistent-dir/usage.db");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().find("/nonexistent-dir/usage.db"), std::string::npos);
}

TEST(TrafficAccounts, LimitsComeFromTheUserOrItsGroup) {
  TrafficAccounts accounts(nullptr, users());
  auto a = accounts.account("alice");
  EXPECT_EQ(a->rate(), 625'000U);  // 5 Mbit/s
  EXPECT_EQ(a->quota(), 100'000'000U);
  auto b = accounts.account("bob");
  EXPECT_EQ(b->rate(), 250'000U);  // the group's 2 Mbit/s
  EXPECT_EQ(b->quota(), engine::TrafficAccount::kNoQuota);
  EXPECT_EQ(accounts.account("alice").get(), a.get());  // one account per user
}

TEST(TrafficAccounts, SetBandwidthOverridesLiveAndSurvivesAReload) {
  TrafficAccounts accounts(nullptr, users());
  auto a = accounts.account("alice");
  ASSERT_TRUE(accounts.set_bandwidth("alice", 1));
  EXPECT_EQ(a->rate(), 125'000U);
  accounts.apply(users());
  EXPECT_EQ(a->rate(), 125'000U);
  ASSERT_TRUE(accounts.set_bandwidth("alice", 0));
  EXPECT_EQ(a->rate(), 0U);
  EXPECT_FALSE(accounts.set_bandwidth("nobody", 1));
}

TEST(TrafficAccounts, TotalsPersistAcrossARestartAndResetLiftsTheQuota) {
  TempDir d;
  const std::string db = (d.path / "usage.db").string();
  {
    auto s = open_sqlite_usage_store(db);
    ASSERT_TRUE(s.ok());
    TrafficAccounts accounts(std::move(*s), users());
    auto a = accounts.account("alice");
    (void)a->on_send(100'000'000, Instant{});
    EXPECT_TRUE(a->quota_exhausted());
  }  // the destructor saves
  auto s = open_sqlite_usage_store(db);
  ASSERT_TRUE(s.ok());
  TrafficAccounts accounts(std::move(*s), users());
  auto a = accounts.account("alice");
  EXPECT_EQ(a->down_total(), 100'000'000U);
  EXPECT_TRUE(a->quota_exhausted());
  const auto rows = accounts.usage();
  ASSERT_EQ(rows.size(), 2U);
  EXPECT_EQ(rows[0].down_bytes, 100'000'000U);
  EXPECT_TRUE(accounts.reset("alice"));
  EXPECT_FALSE(a->quota_exhausted());
  EXPECT_FALSE(accounts.reset("nobody"));
}

}  // namespace
}  // namespace qeli::server
