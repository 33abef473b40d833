// udp-frag.json and quic.json: the UDP handshake fragmentation and the QUIC-shaped
// envelope of the reference implementation. Every case must be present and pass.
#include <gtest/gtest.h>

#include "base/bytes.h"
#include "support/conformance.h"
#include "wire/quic_envelope.h"
#include "wire/udp_frag.h"

namespace qeli::wire {
namespace {

// Each check below runs every case of one vector set by the kind of expectation it
// carries (support/conformance.h) and returns what it checked per kind: the reference may
// add cases, so the tests compare against the file's own size, never fixed totals.
std::size_t size_of(const nlohmann::json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_array() ? j[key].size() : 0;
}

TEST(conformance, udp_frag_constants) {
  const auto j = test::load_conformance("udp-frag.json");
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["max_chunk"].get<std::size_t>(), kFragMaxChunk);
  EXPECT_EQ(j["max_chunk_accept"].get<std::size_t>(), kFragMaxChunkAccept);
  EXPECT_EQ(j["max_frags"].get<std::size_t>(), kFragMaxCount);
  EXPECT_EQ(j["msg_auth_ok"].get<int>(), udp_msg::kAuthOk);
}

test::Tally check_fragment(const nlohmann::json& j) {
  test::Tally t;
  for (const auto& c : test::cases(j, "fragment", 4)) {
    SCOPED_TRACE(c["id"].get<std::string>());
    const test::Expect kind = test::expectation(c);
    t.count(kind);
    Bytes message;
    if (c.contains("message")) {
      message = test::hex_field(c, "message");
    } else {
      // "message_fill": "i*31+7 mod 256"
      EXPECT_EQ(c["message_fill"].get<std::string>(), "i*31+7 mod 256");
      message.resize(c["message_len"].get<std::size_t>());
      for (std::size_t i = 0; i < message.size(); ++i) {
        message[i] = static_cast<std::uint8_t>(i * 31 + 7);
      }
    }
    const auto msg_id = c["msg_id"].get<std::uint8_t>();
    auto r = fragment_message(msg_id, message);
    if (kind == test::Expect::kReject) {
      EXPECT_FALSE(r.ok());
      continue;
    }
    if (kind != test::Expect::kAccept) {
      ADD_FAILURE() << "fragmenting succeeds or fails, never " << test::to_string(kind);
      continue;
    }
    if (!r.ok()) {
      ADD_FAILURE() << to_string(r.error());
      continue;
    }
    const auto& want = c["expect"]["fragments"];
    EXPECT_EQ(r->size(), want.size());
    for (std::size_t i = 0; i < want.size() && i < r->size(); ++i) {
      EXPECT_EQ(to_hex((*r)[i]), want[i].get<std::string>()) << "fragment " << i;
    }
    // And the reassembler gets the message back from them.
    Reassembler re(msg_id);
    for (std::size_t i = 0; i < r->size(); ++i) {
      auto p = re.add((*r)[i], Instant{});
      EXPECT_TRUE(p.ok());
      if (p.ok()) {
        EXPECT_EQ(*p, i + 1 == r->size() ? Reassembler::Progress::kComplete
                                         : Reassembler::Progress::kPartial);
      }
    }
    EXPECT_EQ(to_hex(re.message()), to_hex(message));
  }
  return t;
}

TEST(conformance, udp_frag_fragment) {
  const auto j = test::load_conformance("udp-frag.json");
  test::require_ids(j, "fragment",
                    {"udp-frag/fragment/01", "udp-frag/fragment/02", "udp-frag/fragment/03",
                     "udp-frag/fragment/04"});
  const auto t = check_fragment(j);
  EXPECT_EQ(static_cast<std::size_t>(t.total()), size_of(j, "fragment"));
  EXPECT_GE(t.accept, 3);
  EXPECT_GE(t.reject, 1);
}

// Feeds every datagram of a case; `incomplete` (the reference's verdict for a message
// with a fragment missing) = no error and no message.
test::Tally check_reassemble(const nlohmann::json& j) {
  test::Tally t;
  for (const auto& c : test::cases(j, "reassemble", 6)) {
    SCOPED_TRACE(c["id"].get<std::string>());
    const test::Expect kind = test::expectation(c);
    t.count(kind);
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
    switch (kind) {
      case test::Expect::kReject:
        EXPECT_TRUE(any_error);
        EXPECT_FALSE(message.has_value());
        break;
      case test::Expect::kIncomplete:
        EXPECT_FALSE(any_error);
        EXPECT_FALSE(message.has_value());
        break;
      case test::Expect::kAccept:
        EXPECT_FALSE(any_error);
        EXPECT_TRUE(message.has_value());
        if (message) {
          EXPECT_EQ(to_hex(*message), c["expect"]["message"].get<std::string>());
        }
        break;
      case test::Expect::kUnknown: break;  // counted as a failure
    }
  }
  return t;
}

TEST(conformance, udp_frag_reassemble) {
  const auto j = test::load_conformance("udp-frag.json");
  test::require_ids(j, "reassemble",
                    {"udp-frag/reassemble/00", "udp-frag/reassemble/01", "udp-frag/reassemble/02",
                     "udp-frag/reassemble/04", "udp-frag/reassemble/05", "udp-frag/reassemble/07"});
  const auto t = check_reassemble(j);
  EXPECT_EQ(static_cast<std::size_t>(t.total()), size_of(j, "reassemble"));
  EXPECT_GE(t.accept, 3);
  EXPECT_GE(t.reject, 3);
}

// The reference's full set also holds a message with a fragment missing, whose verdict is
// `incomplete`, and more of each kind: a superset must pass as it is.
TEST(conformance, udp_frag_reassemble_accepts_a_superset) {
  const auto j = test::load_conformance("udp-frag.json");
  auto missing = j["reassemble"][0];
  ASSERT_GE(missing["feed"].size(), 2U);
  missing["id"] = "superset/missing-fragment";
  missing["feed"].erase(missing["feed"].size() - 1);
  missing["expect"] = {{"incomplete", true}};
  auto again = j["reassemble"][0];
  again["id"] = "superset/in-order-again";
  const auto big = test::with_extra_cases(j, "reassemble", {missing, again});
  const auto t = check_reassemble(big);
  EXPECT_EQ(static_cast<std::size_t>(t.total()), size_of(big, "reassemble"));
  EXPECT_EQ(t.incomplete, 1);
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

test::Tally check_quic_parse(const nlohmann::json& j) {
  test::Tally t;
  for (const auto& c : test::cases(j, "parse", 6)) {
    SCOPED_TRACE(c["id"].get<std::string>());
    const test::Expect kind = test::expectation(c);
    t.count(kind);
    const Bytes d = test::hex_field(c, "packet");
    auto p = parse_quic(d);
    if (kind == test::Expect::kReject) {
      EXPECT_FALSE(p.ok());
      EXPECT_FALSE(looks_like_quic(d));
      continue;
    }
    if (kind != test::Expect::kAccept) {
      ADD_FAILURE() << "a datagram parses or not, never " << test::to_string(kind);
      continue;
    }
    if (!p.ok()) {
      ADD_FAILURE() << to_string(p.error());
      continue;
    }
    EXPECT_EQ(to_hex(p->cid), c["expect"]["connection_id"].get<std::string>());
    EXPECT_EQ(p->packet_number, c["expect"]["packet_number"].get<std::uint32_t>());
    EXPECT_EQ(to_hex(p->payload), c["expect"]["payload"].get<std::string>());
  }
  return t;
}

TEST(conformance, quic_parse) {
  const auto j = test::load_conformance("quic.json");
  test::require_ids(j, "parse",
                    {"quic/parse/01", "quic/parse/02", "quic/parse/03", "quic/parse/05",
                     "quic/parse/06", "quic/parse/07"});
  const auto t = check_quic_parse(j);
  EXPECT_EQ(static_cast<std::size_t>(t.total()), size_of(j, "parse"));
  EXPECT_GE(t.accept, 1);
  EXPECT_GE(t.reject, 5);
}

// 0.7.16 (§3.9): one envelope fills its whole datagram, so a long header's Length must
// match the bytes after it exactly; a Length that understates or overstates the datagram
// is refused, like every other malformed header. Built from our own Initial.
TEST(conformance, quic_parse_accepts_a_superset_with_length_mismatches) {
  const auto j = test::load_conformance("quic.json");
  const QuicCid cid{0xde, 0xad, 0xbe, 0xef};
  const Bytes payload{0x78};
  Bytes pkt(quic_long_header_size(payload.size()) + payload.size());
  ASSERT_TRUE(wrap_quic_long(cid, 1, payload, pkt).ok());
  Bytes longer = pkt;
  longer.push_back(0x00);                     // Length understates the datagram
  Bytes shorter(pkt.begin(), pkt.end() - 1);  // Length overstates it
  auto make = [](const char* id, const Bytes& b, nlohmann::json expect) {
    return nlohmann::json{{"id", id}, {"packet", to_hex(b)}, {"expect", std::move(expect)}};
  };
  const auto big = test::with_extra_cases(
      j, "parse",
      {make("superset/length-understates", longer, {{"reject", true}}),
       make("superset/length-overstates", shorter, {{"reject", true}}),
       make("superset/initial", pkt,
            {{"connection_id", "deadbeef"}, {"packet_number", 1}, {"payload", "78"}})});
  const auto t = check_quic_parse(big);
  EXPECT_EQ(static_cast<std::size_t>(t.total()), size_of(big, "parse"));
  EXPECT_GE(t.reject, 7);
  EXPECT_GE(t.accept, 2);
}

}  // namespace
}  // namespace qeli::wire
