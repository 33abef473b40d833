// SessionTable admission around the edges the e2e scenarios touch: a device that comes
// back supersedes its old session without losing its address, and a profile that is
// shutting down admits nobody (a login finishing during stop() must not start a session
// that nothing would ever stop — stop() would then wait for that client forever).
#include "server/session_table.h"

#include <gtest/gtest.h>

namespace qeli::server {
namespace {

constexpr std::uint32_t kNet = 0x0a4d0000;  // 10.77.0.0/24, server 10.77.0.1

SessionTable make_table() {
  return SessionTable(IpPool(kNet, 24, kNet + 1), /*max_clients=*/0,
                      engine::SessionInbox::Geometry{8, 1500, 0, 0});
}

AdmissionRequest device(const std::string& user, const std::string& id) {
  AdmissionRequest r;
  r.user = user;
  r.device_key = user + ":" + id;
  return r;
}

TEST(SessionTable, SameDeviceSupersedesAndKeepsItsAddress) {
  auto t = make_table();
  auto first = t.admit(device("alice", "01"));
  ASSERT_TRUE(first.ok());
  auto second = t.admit(device("alice", "01"));
  ASSERT_TRUE(second.ok());
  EXPECT_TRUE((*first)->stop.stopped());
  EXPECT_TRUE((*first)->superseded.load());
  EXPECT_EQ((*second)->tunnel_ip, (*first)->tunnel_ip);

  // The old connection ends later: its removal must not unroute or free the new one.
  t.remove(*first);
  EXPECT_EQ(t.size(), 1U);
  t.with_routes([&](const auto& routes) {
    auto it = routes.by_ip.find((*second)->tunnel_ip);
    ASSERT_NE(it, routes.by_ip.end());
    EXPECT_EQ(it->second, *second);
  });
  auto other = t.admit(device("bob", "02"));
  ASSERT_TRUE(other.ok());
  EXPECT_NE((*other)->tunnel_ip, (*second)->tunnel_ip);
}

TEST(SessionTable, StopAllStopsEverySessionAndRefusesLaterAdmissions) {
  auto t = make_table();
  auto a = t.admit(device("alice", "01"));
  auto b = t.admit(device("bob", "02"));
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(b.ok());
  t.stop_all();
  EXPECT_TRUE((*a)->stop.stopped());
  EXPECT_TRUE((*b)->stop.stopped());

  auto late = t.admit(device("carol", "03"));
  ASSERT_FALSE(late.ok());
  EXPECT_EQ(late.error(), AdmissionError::kStopping);
  EXPECT_STREQ(to_string(late.error()), "the server is stopping");
  // Nothing was registered for the refused login.
  EXPECT_EQ(t.size(), 2U);
  t.remove(*a);
  t.remove(*b);
  EXPECT_EQ(t.size(), 0U);
  t.with_routes([](const auto& routes) { EXPECT_TRUE(routes.by_ip.empty()); });
  EXPECT_TRUE(t.claims().empty());
}

}  // namespace
}  // namespace qeli::server

namespace qeli::server {
namespace {

// Every way the table ends a session records why, for the client (close frame) and the
// log; the first reason wins.
TEST(SessionTable, EndedSessionsCarryTheirReason) {
  auto t = make_table();
  auto old_dev = t.admit(device("alice", "01"));
  ASSERT_TRUE(old_dev.ok());
  EXPECT_FALSE((*old_dev)->close_reason().has_value());
  auto new_dev = t.admit(device("alice", "01"));
  ASSERT_TRUE(new_dev.ok());
  EXPECT_EQ((*old_dev)->close_reason(), wire::CloseReason::kSuperseded);

  auto bob = t.admit(device("bob", "02"));
  ASSERT_TRUE(bob.ok());
  EXPECT_EQ(t.kick("bob"), 1U);
  EXPECT_EQ((*bob)->close_reason(), wire::CloseReason::kKicked);
  EXPECT_TRUE((*bob)->stop.stopped());

  EXPECT_EQ(t.kick("alice", wire::CloseReason::kDisabled), 1U);
  EXPECT_EQ((*new_dev)->close_reason(), wire::CloseReason::kDisabled);
  t.stop_all();
  EXPECT_EQ((*new_dev)->close_reason(), wire::CloseReason::kDisabled) << "first reason wins";

  auto t2 = make_table();
  auto carol = t2.admit(device("carol", "03"));
  ASSERT_TRUE(carol.ok());
  t2.stop_all();
  EXPECT_EQ((*carol)->close_reason(), wire::CloseReason::kShutdown);
}

// What the NDP proxy hears: each address while it routes to a session, in order, and
// nothing for a late removal of a superseded session (its address belongs to the new one).
struct Recorder final : RoutedAddressObserver {
  std::vector<std::string> log;
  void routed(std::uint32_t ip) override { log.push_back("+" + std::to_string(ip - kNet)); }
  void unrouted(std::uint32_t ip) override { log.push_back("-" + std::to_string(ip - kNet)); }
};

TEST(SessionTable, TheAddressObserverFollowsTheRoutes) {
  auto t = make_table();
  Recorder rec;
  t.set_address_observer(&rec);
  auto a1 = t.admit(device("alice", "01"));
  auto b = t.admit(device("bob", "01"));
  ASSERT_TRUE(a1.ok() && b.ok());
  const auto ia = std::to_string((*a1)->tunnel_ip - kNet);
  const auto ib = std::to_string((*b)->tunnel_ip - kNet);
  auto a2 = t.admit(device("alice", "01"));  // supersedes a1 on the same address
  ASSERT_TRUE(a2.ok());
  t.remove(*a1);  // the old connection ends late: no change
  t.remove(*b);
  t.remove(*a2);
  EXPECT_EQ(rec.log,
            (std::vector<std::string>{"+" + ia, "+" + ib, "-" + ia, "+" + ia, "-" + ib, "-" + ia}));
}

TEST(SessionTable, MaxSessionsEvictionIsNotASupersede) {
  auto t = make_table();
  auto r1 = device("dave", "01");
  r1.max_sessions = 1;
  auto first = t.admit(r1);
  ASSERT_TRUE(first.ok());
  auto r2 = device("dave", "02");
  r2.max_sessions = 1;
  ASSERT_TRUE(t.admit(r2).ok());
  EXPECT_EQ((*first)->close_reason(), wire::CloseReason::kEvicted);
}

// The totals behind qeli_bytes_total: a session's counters stay in them after it ends,
// and a superseded session still counts until its connection is removed (a Prometheus
// counter must never go down).
TEST(SessionTable, TrafficTotalsAreMonotonicAcrossSessionEnds) {
  using tunnel::SessionCounter;
  const auto tx = static_cast<std::size_t>(SessionCounter::kTxBytes);
  auto t = make_table();
  auto first = t.admit(device("alice", "01"));
  ASSERT_TRUE(first.ok());
  (*first)->counters.add(SessionCounter::kTxBytes, 100);
  EXPECT_EQ(t.traffic_totals()[tx], 100U);
  auto second = t.admit(device("alice", "01"));  // supersedes the first
  ASSERT_TRUE(second.ok());
  (*second)->counters.add(SessionCounter::kTxBytes, 7);
  EXPECT_EQ(t.traffic_totals()[tx], 107U);
  (*first)->counters.add(SessionCounter::kTxBytes, 1);  // its last record
  t.remove(*first);
  EXPECT_EQ(t.traffic_totals()[tx], 108U);
  t.remove(*first);  // a second removal does not count it twice
  t.remove(*second);
  EXPECT_EQ(t.traffic_totals()[tx], 108U);
  EXPECT_EQ(t.size(), 0U);
}

}  // namespace
}  // namespace qeli::server
