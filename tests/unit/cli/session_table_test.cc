// list-clients / list-blocked tables in 0.7.16's order and wording: a script that takes a
// row's first field as the user and its last as the drop count reads ours as it read
// 0.7.16's: the header, a rule line of U+2500, then one row per session (0.7.16 scripts
// skip two lines).
#include "cli/session_table.h"

#include <gtest/gtest.h>

#include <sstream>

namespace qeli::cli {
namespace {

std::vector<std::string> fields(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string f; in >> f;) out.push_back(f);
  return out;
}

std::vector<std::string> lines(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

TEST(SessionTable, LegacyCellWording) {
  EXPECT_EQ(legacy_uptime(42), "42s");
  EXPECT_EQ(legacy_uptime(185), "3m5s");
  EXPECT_EQ(legacy_uptime(7620), "2h7m");
  EXPECT_EQ(legacy_bytes(512), "512 B");
  EXPECT_EQ(legacy_bytes(1536), "1.5 KB");
  EXPECT_EQ(legacy_bytes(2U << 20), "2.0 MB");
  EXPECT_EQ(legacy_bytes(5ULL << 28), "1.25 GB");
  EXPECT_EQ(legacy_wait(45), "45s");
  EXPECT_EQ(legacy_wait(845), "14m 5s");
}

TEST(SessionTable, UserFirstDropsLast) {
  control::SessionInfo a;
  a.username = "alice";
  a.profile = "main";
  a.tunnel_ip = "10.9.0.2";
  a.peer = "198.51.100.7:50000";
  a.connected_secs = 185;
  a.tx_bytes = 1536;
  a.rx_bytes = 100;
  a.client_version = "0.7.16";
  a.client_platform = "android";
  a.streams = 2;
  a.drop_replay = 3;
  a.drop_policy = 4;
  a.bandwidth_limit_mbps = 50;
  control::SessionInfo b;  // UDP, no client report, nothing dropped
  b.username = "bob";
  b.profile = "fast";
  b.tunnel_ip = "10.9.0.3";
  b.peer = "203.0.113.9:4000";
  std::ostringstream out;
  print_sessions({a, b}, out);
  const auto l = lines(out.str());
  ASSERT_EQ(l.size(), 4U) << out.str();
  EXPECT_EQ(fields(l[0]), (std::vector<std::string>{"USERNAME", "IP", "SOURCE", "UPTIME", "SENT",
                                                    "RECV", "BW", "LIMIT", "CLIENT", "PROFILE",
                                                    "IPV6", "STREAMS", "ROAMS", "DROPS"}));
  // The rule is as wide as the header line, in U+2500 (3 bytes in UTF-8).
  EXPECT_EQ(l[1].size(), 3 * l[0].size()) << l[1];
  EXPECT_EQ(l[1].find_first_not_of("\xE2\x94\x80"), std::string::npos);
  const auto fa = fields(l[2]);
  EXPECT_EQ(fa.front(), "alice");
  EXPECT_EQ(fa.back(), "7");
  EXPECT_EQ(fa[1], "10.9.0.2");
  EXPECT_EQ(fa[2], "198.51.100.7:50000");
  EXPECT_EQ(fa[3], "3m5s");
  EXPECT_NE(l[2].find("1.5 KB"), std::string::npos);
  EXPECT_NE(l[2].find(" 50 Mbps "), std::string::npos);
  EXPECT_NE(l[2].find("0.7.16/android"), std::string::npos);
  const auto fb = fields(l[3]);
  EXPECT_EQ(fb.front(), "bob");
  EXPECT_EQ(fb.back(), "0");
  EXPECT_NE(l[3].find(" udp "), std::string::npos);
  EXPECT_NE(l[3].find(" unlimited "), std::string::npos);
}

TEST(SessionTable, EmptyListsAreOneLine) {
  std::ostringstream out;
  print_sessions({}, out);
  print_lockouts({}, out);
  EXPECT_EQ(out.str(), "No clients connected.\nNo blocked IPs.\n");
}

TEST(SessionTable, Lockouts) {
  std::ostringstream out;
  print_lockouts({{"192.0.2.1", "", 845, 5}, {"192.0.2.2", "bob", 3, 3}}, out);
  const auto l = lines(out.str());
  ASSERT_EQ(l.size(), 4U);
  EXPECT_EQ(l[1].find_first_not_of("\xE2\x94\x80"), std::string::npos);
  EXPECT_EQ(fields(l[2]),
            (std::vector<std::string>{"192.0.2.1", "5", "14m", "5s", "(every", "user)"}));
  EXPECT_EQ(fields(l[3]), (std::vector<std::string>{"192.0.2.2", "3", "3s", "bob"}));
}

}  // namespace
}  // namespace qeli::cli
