// The mode table (wire/modes.h): what config validation, links, start-up, the client and
// the server read.
#include "wire/modes.h"

#include <gtest/gtest.h>

#include <set>

#include "wire/limits.h"

namespace qeli::wire {
namespace {

TEST(ModeTable, NamesAreUniquePerCarrier) {
  std::set<std::pair<Carrier, std::string_view>> seen;
  for (const ModeSpec& m : all_modes()) {
    EXPECT_TRUE(seen.insert({m.carrier, m.name}).second) << m.name;
    EXPECT_FALSE(m.summary.empty());
    // plain is the only Raw-framed mode, and it runs the plain flight.
    EXPECT_EQ(m.framing == Framing::kRaw, m.flight == Flight::kPlain) << m.name;
  }
}

TEST(ModeTable, WhatThisBuildCarries) {
  EXPECT_TRUE(is_built(*find_mode(Carrier::kStream, "plain")));
  EXPECT_TRUE(is_built(*find_mode(Carrier::kStream, "fake-tls")));
  EXPECT_TRUE(is_built(*find_mode(Carrier::kDatagram, "fake-tls")));
  EXPECT_TRUE(is_built(*find_mode(Carrier::kDatagram, "obfs")));
  EXPECT_TRUE(has_layer(*find_mode(Carrier::kDatagram, "obfs"), Layer::kObfsSeal));
  EXPECT_EQ(refusal(Carrier::kStream, "fake-tls"), "");
  EXPECT_EQ(refusal(Carrier::kDatagram, "plain"), "plain is TCP-only");
  EXPECT_EQ(refusal(Carrier::kDatagram, "reality-tls"), "reality-tls is TCP-only");
  EXPECT_EQ(refusal(Carrier::kStream, "obfs"), "");
  EXPECT_EQ(refusal(Carrier::kStream, "reality"), "");
  EXPECT_EQ(refusal(Carrier::kStream, "reality-tls"), "");
  EXPECT_TRUE(has_layer(*find_mode(Carrier::kStream, "reality-tls"), Layer::kTls13));
  EXPECT_NE(refusal(Carrier::kStream, "nope").find("unknown mode nope"), std::string::npos);
  EXPECT_EQ(mode_names(), "plain|fake-tls|obfs|reality|reality-tls");
}

TEST(ModeTable, RoomIsTheSumOfTheLayers) {
  const ModeSpec& obfs = *find_mode(Carrier::kDatagram, "obfs");
  EXPECT_EQ(room(obfs, false).head, kObfsSealSize);
  EXPECT_EQ(room(obfs).head, kObfsSealSize + kQuicShortHeaderSize);
  // A server reserves the largest envelope a client may pick.
  EXPECT_EQ(max_room(Carrier::kDatagram).head, kObfsSealSize + kQuicShortHeaderSize);
  // On TCP: the WebSocket front's frame header (a masked client frame, 64-bit length).
  EXPECT_EQ(max_room(Carrier::kStream).head, 14U);
}

}  // namespace
}  // namespace qeli::wire
