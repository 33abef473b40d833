#include "wire/session_close.h"

#include <gtest/gtest.h>

namespace qeli::wire {
namespace {

TEST(session_close, bytes_are_as_documented) {
  // docs/PROTOCOL.md §12: C1 9B ‖ 80 ‖ 01 ‖ reason.
  EXPECT_EQ(to_hex(build_session_close(CloseReason::kKicked)), "c19b800101");
  EXPECT_EQ(to_hex(build_session_close(CloseReason::kSuperseded)), "c19b800102");
  EXPECT_EQ(to_hex(build_session_close(CloseReason::kShutdown)), "c19b800103");
  EXPECT_EQ(to_hex(build_session_close(CloseReason::kDisabled)), "c19b800104");
  EXPECT_EQ(to_hex(build_session_close(CloseReason::kIdle)), "c19b800105");
  EXPECT_EQ(to_hex(build_session_close(CloseReason::kEvicted)), "c19b800106");
  // Client → server.
  EXPECT_EQ(to_hex(build_session_close(CloseReason::kClientStopping)), "c19b800107");
  EXPECT_STREQ(to_string(CloseReason::kClientStopping), "the client is stopping");
  // Server → client: why the user may not come back.
  EXPECT_EQ(to_hex(build_session_close(CloseReason::kQuotaExhausted)), "c19b800108");
  EXPECT_EQ(to_hex(build_session_close(CloseReason::kCredentialsChanged)), "c19b800109");
}

TEST(session_close, round_trips_through_the_control_frame_parser) {
  for (auto r : {CloseReason::kKicked, CloseReason::kSuperseded, CloseReason::kShutdown,
                 CloseReason::kDisabled, CloseReason::kIdle, CloseReason::kEvicted,
                 CloseReason::kClientStopping, CloseReason::kQuotaExhausted,
                 CloseReason::kCredentialsChanged}) {
    const Bytes f = build_session_close(r);
    ASSERT_EQ(classify_plaintext(f), PlaintextKind::kControl);
    auto c = parse_control_frame(f);
    ASSERT_TRUE(c.ok());
    auto got = parse_session_close(*c);
    ASSERT_TRUE(got.ok());
    EXPECT_EQ(*got, r);
  }
}

TEST(session_close, unknown_reason_is_kept_for_forward_compatibility) {
  const Bytes f = from_hex("c19b800277ff").value();  // reason 0x77 plus one future byte
  auto got = parse_session_close(parse_control_frame(f).value());
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(static_cast<int>(*got), 0x77);
  EXPECT_STREQ(to_string(*got), "an unknown reason");
}

TEST(session_close, malformed_frames_are_refused) {
  // Empty body, reason 0, another type, a body that runs past the plaintext.
  for (const char* hex : {"c19b8000", "c19b800100", "c19b400101"}) {
    const Bytes f = from_hex(hex).value();  // the frame views these bytes
    auto c = parse_control_frame(f);
    ASSERT_TRUE(c.ok()) << hex;
    EXPECT_FALSE(parse_session_close(*c).ok()) << hex;
  }
  const Bytes truncated = from_hex("c19b800201").value();
  EXPECT_EQ(parse_control_frame(truncated).error(), ControlError::kTruncated);
}

TEST(session_close, writer_refuses_a_short_buffer) {
  std::uint8_t small[4];
  EXPECT_EQ(write_session_close(CloseReason::kKicked, MutableByteSpan(small, sizeof small)), 0U);
  std::uint8_t exact[kSessionCloseFrameSize];
  EXPECT_EQ(write_session_close(CloseReason::kIdle, MutableByteSpan(exact, sizeof exact)),
            kSessionCloseFrameSize);
  EXPECT_EQ(exact[4], 5);
}

}  // namespace
}  // namespace qeli::wire
