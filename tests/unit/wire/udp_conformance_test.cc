// udp-frag.json and quic.json: the UDP handshake fragmentation and the QUIC-shaped
// envelope of the reference implementation. Every case must be present and pass.
#include <gtest/gtest.h>

#include "base/bytes.h"
#include "support/conformance.h"
#include "wire/quic_envelope.h"
#include "wire/udp_frag.h"

namespace qeli::wire {
namespace {

bool expects_reject(const nlohmann::json& c) {
  const auto& e = c["expect"];
  return e.contains("reject") && e["reject"].get<bool>();
}

TEST(conformance, udp_frag_constants) {
  const auto j = test::load_conformance("udp-frag.json");
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["max_chunk"].get<std::size_t>(), kFragMaxChunk);
  EXPECT_EQ(j["max_chunk_accept"].get<std::size_t>(), kFragMaxChunkAccept);
  EXPECT_EQ(j["max_frags"].get<std::size_t>(), kFragMaxCount);
  EXPECT_EQ(j["msg_auth_ok"].get<int>(), udp_msg::kAuthOk);
}

TEST(conformance, udp_frag_fragment) {
  const auto j = test::load_conformance("udp-frag.json");
  test::require_ids(j, "fragment",
                    {"udp-frag/fragment/01", "udp-frag/fragment/02", "udp-frag/fragment/03",
                     "udp-frag/fragment/04"});
  int rejected = 0, built = 0;
  for (const auto& c : test::cases(j, "fragment", 4)) {
    SCOPED_TRACE(c["id"].get<std::string>());
    Bytes message;
    if (c.contains("message")) {
      message = test::hex_field(c, "message");
    } else {
      // "message_fill": "i*31+7 mod 256"
      ASSERT_EQ(c["message_fill"].get<std::string>(), "i*31+7 mod 256");
      message.resize(c["message_len"].get<std::size_t>());
      for (std::size_t i = 0; i < message.size(); ++i) {
        message[i] = static_cast<std::uint8_t>(i * 31 + 7);
      }
    }
    const auto msg_id = c["msg_id"].get<std::uint8_t>();
    auto r = fragment_message(msg_id, message);
    if (expects_reject(c)) {
      EXPECT_FALSE(r.ok());
      ++rejected;
      continue;
    }
    ASSERT_TRUE(r.ok()) << to_string(r.error());
    const auto& want = c["expect"]["fragments"];
    ASSERT_EQ(r->size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ(to_hex((*r)[i]), want[i].get<std::string>()) << "fragment " << i;
    }
    // And the reassembler gets the message back from them.
    Reassembler re(msg_id);
    for (std::size_t i = 0; i < r->size(); ++i) {
      auto p = re.add((*r)[i], Instant{});
      ASSERT_TRUE(p.ok());
      EXPECT_EQ(*p, i + 1 == r->size() ? Reassembler::Progress::kComplete
                                       : Reassembler::Progress::kPartial);
    }
    EXPECT_EQ(to_hex(re.message()), to_hex(message));
    ++built;
  }
  EXPECT_EQ(built, 3);
  EXPECT_EQ(rejected, 1);
}

TEST(conformance, udp_frag_reassemble) {
  const auto j = test::load_conformance("udp-frag.json");
  test::require_ids(j, "reassemble",
                    {"udp-frag/reassemble/00", "udp-frag/reassemble/01", "udp-frag/reassemble/02",
                     "udp-frag/reassemble/04", "udp-frag/reassemble/05", "udp-frag/reassemble/07"});
  int complete = 0, rejected = 0;
  for (const auto& c : test::cases(j, "reassemble", 6)) {
    SCOPED_TRACE(c["id"].get<std::string>());
    // The vectors use msg 2; the reassembler collects the id of the first valid datagram.
    Reassembler re(udp_msg::kServerFlight);
    std::optional<Bytes> message;
    bool any_error = false;
    for (const auto& f : c["feed"]) {
      const Bytes d = from_hex(f.get<std::string>()).value();
      auto p = re.add(d, Instant{});
      if (!p.ok()) {
        any_error = true;
      } else if (*p == Reassembler::Progress::kComplete) {
        EXPECT_FALSE(message.has_value());
        message = Bytes(re.message().begin(), re.message().end());
      }
    }
    if (expects_reject(c)) {
      EXPECT_TRUE(any_error);
      EXPECT_FALSE(message.has_value());
      ++rejected;
    } else {
      EXPECT_FALSE(any_error);
      ASSERT_TRUE(message.has_value());
      EXPECT_EQ(to_hex(*message), c["expect"]["message"].get<std::string>());
      ++complete;
    }
  }
  EXPECT_EQ(complete, 3);
  EXPECT_EQ(rejected, 3);
}

TEST(conformance, udp_frag_classify) {
  const auto j = test::load_conformance("udp-frag.json");
  test::require_ids(j, "classify",
                    {"udp-frag/classify/01", "udp-frag/classify/02", "udp-frag/classify/03",
                     "udp-frag/classify/04", "udp-frag/classify/05", "udp-frag/classify/06"});
  for (const auto& c : test::cases(j, "classify", 6)) {
    SCOPED_TRACE(c["id"].get<std::string>());
    const Bytes d = test::hex_field(c, "datagram");
    const DatagramKind k = classify_datagram(d);
    const auto& e = c["expect"];
    EXPECT_EQ(is_fragment(k), e["is_fragment"].get<bool>()) << to_string(k);
    EXPECT_EQ(k == DatagramKind::kJunk, e["is_junk"].get<bool>());
    EXPECT_EQ(k == DatagramKind::kMtuProbe, e["is_mtu_probe"].get<bool>());
    EXPECT_EQ(k == DatagramKind::kMtuProbeAck, e["is_mtu_probe_ack"].get<bool>());
    EXPECT_EQ(k == DatagramKind::kAuthOkFragment, e["is_auth_ok"].get<bool>());
  }
}

TEST(conformance, quic_wrap) {
  const auto j = test::load_conformance("quic.json");
  test::require_ids(j, "wrap", {"quic/wrap/00", "quic/wrap/01", "quic/wrap/03"});
  for (const auto& c : test::cases(j, "wrap", 3)) {
    SCOPED_TRACE(c["id"].get<std::string>());
    const Bytes payload = test::hex_field(c, "payload");
    const Bytes cid_bytes = test::hex_field(c, "connection_id");
    ASSERT_EQ(cid_bytes.size(), kQuicCidSize);
    QuicCid cid{};
    std::copy(cid_bytes.begin(), cid_bytes.end(), cid.begin());
    const auto pn = c["packet_number"].get<std::uint32_t>();
    Bytes out(kQuicShortHeaderSize + payload.size());
    auto n = wrap_quic_short(cid, pn, payload, out);
    ASSERT_TRUE(n.ok());
    EXPECT_EQ(*n, out.size());
    EXPECT_EQ(to_hex(out), c["expect"]["packet"].get<std::string>());
    // It parses back to the same fields.
    auto p = parse_quic(out);
    ASSERT_TRUE(p.ok());
    EXPECT_FALSE(p->long_header);
    EXPECT_EQ(p->cid, cid);
    EXPECT_EQ(p->packet_number, pn);
    EXPECT_EQ(to_hex(p->payload), to_hex(payload));
  }
}

TEST(conformance, quic_parse) {
  const auto j = test::load_conformance("quic.json");
  test::require_ids(j, "parse",
                    {"quic/parse/01", "quic/parse/02", "quic/parse/03", "quic/parse/05",
                     "quic/parse/06", "quic/parse/07"});
  int accepted = 0, rejected = 0;
  for (const auto& c : test::cases(j, "parse", 6)) {
    SCOPED_TRACE(c["id"].get<std::string>());
    const Bytes d = test::hex_field(c, "packet");
    auto p = parse_quic(d);
    if (expects_reject(c)) {
      EXPECT_FALSE(p.ok());
      EXPECT_FALSE(looks_like_quic(d));
      ++rejected;
      continue;
    }
    ASSERT_TRUE(p.ok()) << to_string(p.error());
    EXPECT_EQ(to_hex(p->cid), c["expect"]["connection_id"].get<std::string>());
    EXPECT_EQ(p->packet_number, c["expect"]["packet_number"].get<std::uint32_t>());
    EXPECT_EQ(to_hex(p->payload), c["expect"]["payload"].get<std::string>());
    ++accepted;
  }
  EXPECT_EQ(accepted, 1);
  EXPECT_EQ(rejected, 5);
}

}  // namespace
}  // namespace qeli::wire
