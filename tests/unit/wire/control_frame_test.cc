#include "wire/control_frame.h"

#include <gtest/gtest.h>

namespace qeli::wire {
namespace {

TEST(control_frame, mtu_report_bytes_match_the_reference) {
  // 0.7.16 pins these bytes in its own tests: 1280 = 0x0500.
  EXPECT_EQ(to_hex(build_mtu_report(1280)), "c19b01020500");
  EXPECT_EQ(to_hex(build_mtu_report(0xFFFF)), "c19b0102ffff");
}

TEST(control_frame, mtu_report_is_clamped) {
  for (auto [in, out] : {std::pair{1280, 1280},
                         {0, 576},
                         {575, 576},
                         {16638, 16638},
                         {16639, 16638},
                         {0xFFFF, 16638}}) {
    const Bytes f = build_mtu_report(static_cast<std::uint16_t>(in));
    auto c = parse_control_frame(f);
    ASSERT_TRUE(c.ok());
    auto m = parse_mtu_report(*c);
    ASSERT_TRUE(m.ok());
    EXPECT_EQ(*m, out) << in;
  }
}

TEST(control_frame, client_info_bytes_match_the_reference) {
  EXPECT_EQ(to_hex(build_client_info("0.7.13", "linux")), "c19b020c06302e372e31336c696e7578");
  const Bytes f = build_client_info("1.0.0-rc1+build.7", "router");
  auto info = parse_client_info(parse_control_frame(f).value());
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->version, "1.0.0-rc1+build.7");
  EXPECT_EQ(info->platform, "router");
}

TEST(control_frame, hostile_client_info_is_refused) {
  for (auto [v, p] : {std::pair{"1.0\n", "linux"},
                      {"", "linux"},
                      {"1.0", ""},
                      {"1.0", "Linux"},
                      {"<script>", "linux"},
                      {"1.0 beta", "linux"},
                      {"012345678901234567890123456789012", "linux"},
                      {"1.0", "01234567890123456"}}) {
    EXPECT_TRUE(build_client_info(v, p).empty()) << v << "/" << p;
    // Hand-built frame with the same strings is refused by the parser too.
    Bytes f = {0xC1, 0x9B, 2, 0};
    const std::string_view vs(v), ps(p);
    f.push_back(static_cast<std::uint8_t>(vs.size()));
    f.insert(f.end(), vs.begin(), vs.end());
    f.insert(f.end(), ps.begin(), ps.end());
    f[3] = static_cast<std::uint8_t>(f.size() - 4);
    auto c = parse_control_frame(f);
    ASSERT_TRUE(c.ok());
    EXPECT_FALSE(parse_client_info(*c).ok());
  }
}

TEST(control_frame, classification) {
  EXPECT_EQ(classify_plaintext({}), PlaintextKind::kHeartbeat);
  const Bytes ipv4 = {0x45, 0, 0, 20};
  EXPECT_EQ(classify_plaintext(ipv4), PlaintextKind::kPacket);
  const Bytes short_magic = {0xC1, 0x9B, 1};
  EXPECT_EQ(classify_plaintext(short_magic), PlaintextKind::kPacket);
  EXPECT_EQ(classify_plaintext(build_mtu_report(1400)), PlaintextKind::kControl);
}

TEST(control_frame, malformed_and_unknown_frames) {
  const Bytes truncated = {0xC1, 0x9B, 1, 8, 0, 0};
  EXPECT_EQ(parse_control_frame(truncated).error(), ControlError::kTruncated);
  const Bytes wrong_size = {0xC1, 0x9B, 1, 1, 5};
  EXPECT_EQ(parse_mtu_report(parse_control_frame(wrong_size).value()).error(),
            ControlError::kBadBody);
  // Unknown type: parses so it can be skipped by its length; not any known frame.
  const Bytes unknown = {0xC1, 0x9B, 0xEE, 1, 7, 0xAA};
  auto c = parse_control_frame(unknown);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->type, 0xEE);
  EXPECT_EQ(to_hex(c->body), "07");
  EXPECT_FALSE(parse_mtu_report(*c).ok());
  EXPECT_FALSE(parse_capabilities(*c).ok());
}

TEST(control_frame, capabilities_round_trip) {
  const Bytes f = build_capabilities(0xA5000001);
  EXPECT_EQ(to_hex(f), "c19b4004a5000001");
  auto caps = parse_capabilities(parse_control_frame(f).value());
  ASSERT_TRUE(caps.ok());
  EXPECT_EQ(*caps, 0xA5000001U);
}

TEST(control_frame, builders_refuse_small_buffers) {
  std::array<std::uint8_t, 5> small{};
  EXPECT_EQ(write_mtu_report(1400, small), 0U);
  EXPECT_EQ(write_capabilities(1, small), 0U);
  EXPECT_EQ(write_client_info("1", "linux", small), 0U);
}

}  // namespace
}  // namespace qeli::wire
