// In-memory client↔server handshakes (plain and fake-tls), then records both ways.
#include <gtest/gtest.h>

#include "base/endian.h"
#include "handshake/key_schedule.h"
#include "harness.h"
#include "wire/control_frame.h"
#include "wire/record_reader.h"

namespace qeli::handshake {
namespace {

using test::Harness;
using test::Outcome;

Bytes pattern(std::size_t n, std::uint8_t salt) {
  Bytes b(n);
  for (std::size_t i = 0; i < n; ++i) b[i] = static_cast<std::uint8_t>(i * 7 + salt);
  return b;
}

// Seals `data` with `tx` and opens it with `rx`; true iff the data came back.
bool exchange(wire::PacketCodec& tx, wire::PacketCodec& rx, const Bytes& data,
              std::size_t pad = 0) {
  Bytes rec(wire::record_size(tx.framing(), data.size(), pad));
  if (!tx.seal(data, pad, rec).ok()) return false;
  auto r = rx.open_in_place(rec);
  return r.ok() && Bytes(r->data.begin(), r->data.end()) == data;
}

void expect_success(const Outcome& r) {
  ASSERT_EQ(r.client_state, State::kDone) << to_string(r.client_failure);
  ASSERT_EQ(r.server_state, State::kDone) << to_string(r.server_failure);
}

void expect_records_both_ways(Outcome& r) {
  for (std::size_t len : {0UL, 1UL, 20UL, 1400UL, wire::kMaxTunnelMtu}) {
    EXPECT_TRUE(exchange(r.client->send, r.server->recv, pattern(len, 1))) << len;
    EXPECT_TRUE(exchange(r.server->send, r.client->recv, pattern(len, 2), len == 20 ? 100 : 0))
        << len;
  }
}

class EveryMode : public ::testing::TestWithParam<Mode> {};
INSTANTIATE_TEST_SUITE_P(handshake, EveryMode, ::testing::Values(Mode::kPlain, Mode::kFakeTls),
                         [](const auto& p) {
                           return std::string(p.param == Mode::kPlain ? "plain" : "fake_tls");
                         });

TEST_P(EveryMode, full_handshake_then_records_both_ways) {
  Harness h(GetParam());
  Outcome r = h.run();
  expect_success(r);
  ASSERT_EQ(r.auth_requests.size(), 1U);
  EXPECT_EQ(r.auth_requests[0].user, "alice");
  EXPECT_EQ(r.auth_requests[0].password, "s3cret:pw");  // split at the FIRST ':'
  EXPECT_EQ(r.auth_requests[0].device_id, h.client_cfg.device_id);
  EXPECT_TRUE(r.auth_requests[0].key_proof_ok);
  EXPECT_EQ(r.client->server_key, h.identity.public_key);
  EXPECT_TRUE(r.client->server_key_was_pinned);
  ASSERT_TRUE(r.client->auth_ok.has_value());
  const AuthOk& ok = *r.client->auth_ok;
  EXPECT_EQ(ok.client_ip, "10.8.0.2");
  EXPECT_EQ(ok.server_ip, "10.8.0.1");
  EXPECT_EQ(ok.mtu, 1400);
  EXPECT_EQ(ok.routes.size(), 2U);
  EXPECT_EQ(ok.routes[1].metric, 50U);
  EXPECT_EQ(ok.session_token, h.auth_ok.session_token);
  EXPECT_EQ(ok.max_streams, 4);
  EXPECT_TRUE(ok.multipath_adaptive);
  EXPECT_EQ(ok.obfuscation_json, R"({"heartbeat":{"enabled":true,"interval_ms":15000}})");
  const wire::Framing f = GetParam() == Mode::kPlain ? wire::Framing::kRaw : wire::Framing::kTls;
  EXPECT_EQ(r.client->send.framing(), f);
  EXPECT_EQ(r.server->recv.framing(), f);
  if (GetParam() == Mode::kPlain) {
    // plain: server_pub(32), then a Raw record carrying static_pub ‖ proof (64 bytes).
    EXPECT_EQ(load_be16(r.s2c.data() + 32), wire::kRecordOverhead + 64);
  } else {
    // fake-tls: ServerHello (1217 bytes) then the CCS record.
    ASSERT_GT(r.s2c.size(), 1223U);
    EXPECT_EQ(to_hex(ByteSpan(r.s2c).subspan(1217, 6)), "140303000101");
    EXPECT_EQ(r.c2s[0], 0x16);
  }
  // Extensions on both ends (the default): negotiated, and the client's capability frame
  // reaches the server's data plane.
  EXPECT_EQ(r.client->negotiated_caps, caps::kCapabilityExchange);
  EXPECT_EQ(r.server->advertised_caps, caps::kCapabilityExchange);
  wire::RecordReader reader(f, wire::kMaxRecordPayload);
  ASSERT_EQ(reader.feed(r.c2s_after_done), r.c2s_after_done.size());
  auto next = reader.next();
  ASSERT_EQ(next.status, wire::RecordReader::Status::kRecord);
  auto opened = r.server->recv.open_in_place(next.record);
  ASSERT_TRUE(opened.ok());
  auto frame = wire::parse_control_frame(opened->data);
  ASSERT_TRUE(frame.ok());
  EXPECT_EQ(wire::parse_capabilities(*frame).value(), caps::kCapabilityExchange);
  expect_records_both_ways(r);
}

}  // namespace
}  // namespace qeli::handshake
