// One flipped bit anywhere in any handshake message or record must end in a failure with a
// reason (never a crash, never a silently different session). The only bytes that are not
// authenticated are the random contents of the disguised NewSessionTicket, which 0.7.16
// leaves outside the transcript; a flip there may succeed.
#include <gtest/gtest.h>

#include "base/endian.h"
#include "harness.h"

namespace qeli::handshake {
namespace {

using test::Harness;
using test::Outcome;

// [begin, end) of the NST body (after its record and handshake headers) in s2c.
std::pair<std::size_t, std::size_t> ticket_body(const Bytes& s2c) {
  std::size_t off = 0;
  for (int rec = 0; rec < 5 && off + 5 <= s2c.size(); ++rec) {
    const std::size_t len = load_be16(s2c.data() + off + 3);
    if (rec == 4) return {off + 9, off + 5 + len};
    off += 5 + len;
  }
  return {0, 0};
}

void sweep(Mode mode, bool client_to_server, std::size_t stride) {
  Harness base(mode, 40);
  base.client_cfg.extensions = base.server_cfg.extensions = 0;
  const Outcome good = base.run();
  ASSERT_EQ(good.client_state, State::kDone);
  const Bytes& stream = client_to_server ? good.c2s : good.s2c;
  const auto [nst_begin, nst_end] =
      mode == Mode::kFakeTls ? ticket_body(good.s2c) : std::pair<std::size_t, std::size_t>{0, 0};
  std::size_t failures = 0, runs = 0;
  for (std::size_t bit = 0; bit < stream.size() * 8; bit += stride) {
    Harness h(mode, 40);
    h.client_cfg.extensions = h.server_cfg.extensions = 0;
    h.flip = test::Flip{client_to_server, bit};
    const Outcome r = h.run();
    ++runs;
    const bool both_done = r.client_state == State::kDone && r.server_state == State::kDone;
    const std::size_t byte = bit / 8;
    const bool opaque = !client_to_server && byte >= nst_begin && byte < nst_end;
    if (!opaque) {
      EXPECT_FALSE(both_done) << (client_to_server ? "c2s" : "s2c") << " bit " << bit;
    }
    if (r.client_state == State::kFailed) {
      EXPECT_NE(r.client_failure, Failure::kNone);
    }
    if (r.server_state == State::kFailed) {
      EXPECT_NE(r.server_failure, Failure::kNone);
    }
    // No half-success: a side that finished has the same view as in the good run.
    if (r.client_state == State::kDone) {
      EXPECT_EQ(r.client->server_key, good.client->server_key);
    }
    failures += both_done ? 0 : 1;
  }
  EXPECT_GT(runs, 100U);
  EXPECT_GT(failures, runs * 9 / 10);
}

TEST(handshake_tamper, plain_client_to_server_every_bit) { sweep(Mode::kPlain, true, 1); }
// Odd strides are co-prime with 8, so every bit position of a byte is exercised.
TEST(handshake_tamper, plain_server_to_client) { sweep(Mode::kPlain, false, 3); }
TEST(handshake_tamper, fake_tls_client_to_server) { sweep(Mode::kFakeTls, true, 13); }
TEST(handshake_tamper, fake_tls_server_to_client) { sweep(Mode::kFakeTls, false, 13); }

}  // namespace
}  // namespace qeli::handshake
