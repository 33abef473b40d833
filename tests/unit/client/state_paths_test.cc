// The client's per-device, per-namespace state paths.
#include "client/state_paths.h"

#include <gtest/gtest.h>

namespace qeli::client {
namespace {

TEST(StatePaths, InitialNamespaceKeepsThePlainHostPaths) {
  const auto p = state_paths("", "vpn0", "");
  EXPECT_EQ(p.journal, "/var/lib/qeli/journal-vpn0.log");
  EXPECT_EQ(p.resolv_backup, "/var/lib/qeli/resolv.conf.backup");
}

TEST(StatePaths, TwoNamespacesNeverShareAFile) {
  const auto a = state_paths("/srv/qeli", "vpn0", "@blue");
  const auto b = state_paths("/srv/qeli", "vpn0", "@ns4026532281");
  EXPECT_EQ(a.journal, "/srv/qeli/journal-vpn0@blue.log");
  EXPECT_EQ(a.resolv_backup, "/srv/qeli/resolv.conf.backup@blue");
  EXPECT_NE(a.journal, b.journal);
  EXPECT_NE(a.resolv_backup, b.resolv_backup);
  // ...and two devices in one namespace do not share a journal either.
  EXPECT_NE(state_paths("", "vpn0", "@blue").journal, state_paths("", "vpn1", "@blue").journal);
}

TEST(StatePaths, CurrentNamespaceIsStable) {
  // Two calls in the same thread agree (what a run and its --cleanup rely on).
  const auto a = current_state_paths("/tmp/x", "vpn0");
  const auto b = current_state_paths("/tmp/x", "vpn0");
  EXPECT_EQ(a.journal, b.journal);
  EXPECT_EQ(a.journal.rfind("/tmp/x/journal-vpn0", 0), 0U) << a.journal;
}

}  // namespace
}  // namespace qeli::client

namespace qeli::client {
namespace {

// The trial: two clients with different `dev` in one namespace shared the device id and
// superseded each other on the server forever.
TEST(StatePaths, DeviceIdIsPerDevAndNamespace) {
  EXPECT_EQ(state_paths("", "vpn0", "").device_id, "/var/lib/qeli/device-id")
      << "the default dev in the initial namespace keeps the path qeli always used";
  EXPECT_EQ(state_paths("", "vpn1", "").device_id, "/var/lib/qeli/device-id-vpn1");
  EXPECT_EQ(state_paths("/s", "vpn0", "@blue").device_id, "/s/device-id-vpn0@blue");
  EXPECT_NE(state_paths("", "vpn0", "").device_id, state_paths("", "office", "").device_id);
}

TEST(StatePaths, JournalNamesParseBack) {
  auto a = parse_journal_name("journal-vpn1@blue.log");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->dev, "vpn1");
  EXPECT_EQ(a->netns_suffix, "@blue");
  auto b = parse_journal_name("journal-office0.log");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->dev, "office0");
  EXPECT_EQ(b->netns_suffix, "");
  EXPECT_FALSE(parse_journal_name("journal-.log"));
  EXPECT_FALSE(parse_journal_name("device-id"));
  EXPECT_FALSE(parse_journal_name("journal-vpn0.log.tmp"));
}

}  // namespace
}  // namespace qeli::client
