// The WebSocket front of TCP obfs: RFC 6455 vectors (§1.3 accept key, §5.7 masking and
// length forms), masking against a byte-by-byte reference, the upgrade checks, the frame
// parser's limits (nginx's answers: nginx_decoy_test.cc).
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "crypto/base64.h"
#include "wire/udp_obfs.h"
#include "wire/ws_frame.h"
#include "wire/ws_handshake.h"

namespace qeli::wire {
namespace {

crypto::Key32 key() { return derive_obfs_key("test-psk"); }

std::string request(std::string_view path, std::string_view extra = "") {
  std::string r = "GET " + std::string(path) +
                  " HTTP/1.1\r\nHost: a.example\r\nUpgrade: websocket\r\n"
                  "Connection: keep-alive, Upgrade\r\n"
                  "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n";
  r += extra;
  r += "Sec-WebSocket-Version: 13\r\n\r\n";
  return r;
}

TEST(WsHandshake, AcceptKeyIsRfc6455Section1_3Example) {
  EXPECT_EQ(ws_accept("dGhlIHNhbXBsZSBub25jZQ=="), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
}

TEST(WsHandshake, PathIsStableUrlSafeAnd24Characters) {
  const std::string p = ws_path(key());
  EXPECT_EQ(p, ws_path(key()));
  ASSERT_EQ(p.size(), 25U);
  EXPECT_EQ(p[0], '/');
  EXPECT_EQ(p.find_first_of("+/=", 1), std::string::npos);
  EXPECT_NE(p, ws_path(derive_obfs_key("other")));
}

TEST(WsHandshake, RequestCarriesPathHeadersAndA16ByteKey) {
  crypto::DeterministicRng rng(7);
  const std::string r = build_ws_request("vpn.example", key(), rng);
  EXPECT_TRUE(r.starts_with("GET " + ws_path(key()) + " HTTP/1.1\r\nHost: vpn.example\r\n"));
  EXPECT_NE(r.find("\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"), std::string::npos);
  EXPECT_NE(r.find("Sec-WebSocket-Version: 13\r\n\r\n"), std::string::npos);
  EXPECT_EQ(crypto::base64_decode(ws_request_key(r))->size(), 16U);
  EXPECT_EQ(ws_head_end(as_bytes(r)), r.size());
  // Our own server accepts it and answers with the matching accept key.
  const auto v = check_ws_request(as_bytes(r), key());
  ASSERT_TRUE(v.response);
  EXPECT_TRUE(ws_response_ok(as_bytes(*v.response), ws_request_key(r)));
  EXPECT_FALSE(ws_response_ok(as_bytes(*v.response), "AAAAAAAAAAAAAAAAAAAAAA=="));
  // A bare IP: a decoy Host.
  const std::string d = build_ws_request("", key(), rng);
  EXPECT_TRUE(d.find("Host: www.") != std::string::npos);
}

TEST(WsHandshake, OnlyAnUpgradeToTheSecretPathGets101) {
  const std::string path = ws_path(key());
  const auto ok = check_ws_request(as_bytes(request(path)), key());
  ASSERT_TRUE(ok.response);
  EXPECT_EQ(*ok.response,
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n");
  struct Case {
    std::string head;
    WsReject why;
  } cases[] = {
      {"POST " + path + " HTTP/1.1\r\n\r\n", WsReject::kNotGet},
      {request("/"), WsReject::kWrongPath},
      {request(path.substr(0, 24) + "x"), WsReject::kWrongPath},
      {request(path + "x"), WsReject::kWrongPath},
      {"GET " + path + " HTTP/1.1\r\nConnection: Upgrade\r\nSec-WebSocket-Key: " +
           "dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
       WsReject::kNoUpgrade},
      {"GET " + path + " HTTP/1.1\r\nUpgrade: websocket\r\nConnection: keep-alive\r\n\r\n",
       WsReject::kNoConnectionUpgrade},
      {"GET " + path + " HTTP/1.1\r\nUpgrade: websocket\r\nConnection: upgrade\r\n\r\n",
       WsReject::kBadKey},
      {"GET " + path +
           " HTTP/1.1\r\nUpgrade: websocket\r\nConnection: upgrade\r\nSec-WebSocket-Key: "
           "AAAA\r\n\r\n",
       WsReject::kBadKey},
  };
  for (const auto& c : cases) {
    const auto v = check_ws_request(as_bytes(c.head), key());
    EXPECT_FALSE(v.response) << c.head;
    EXPECT_EQ(v.reject, c.why) << c.head;
  }
}

TEST(WsHandshake, HeadEndNeedsCrlfCrlf) {
  EXPECT_EQ(ws_head_end(as_bytes("GET / HTTP/1.1\r\nHost: x\r\n")), 0U);
  EXPECT_EQ(ws_head_end(as_bytes("GET / HTTP/1.1\n\n")), 0U);
  EXPECT_EQ(ws_head_end(as_bytes("A\r\n\r\nrest")), 5U);
}

TEST(WsFrame, HeaderFormsAndMaskingMatchRfc6455Section5_7) {
  // §5.7: a single-frame masked text "Hello".
  const WsMask mask{0x37, 0xfa, 0x21, 0x3d};
  std::uint8_t f[16] = {};
  const std::size_t h = write_ws_header(f, WsOpcode::kText, 5, &mask);
  ASSERT_EQ(h, 6U);
  std::memcpy(f + h, "Hello", 5);
  ws_apply_mask(MutableByteSpan(f + h, 5), mask);
  const std::uint8_t expect[] = {0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58};
  EXPECT_EQ(Bytes(f, f + 11), Bytes(std::begin(expect), std::end(expect)));
  // Parsing it back (as a server reads a client's frame).
  auto p = parse_ws_header(ByteSpan(f, 11), true);
  ASSERT_TRUE(p && p->has_value());
  EXPECT_EQ((*p)->opcode, WsOpcode::kText);
  EXPECT_EQ((*p)->length, 5U);
  EXPECT_EQ((*p)->mask, mask);
  // 256 bytes: 16-bit length; 65536: 64-bit length (§5.7's examples).
  EXPECT_EQ(write_ws_header(f, WsOpcode::kBinary, 256, nullptr), 4U);
  EXPECT_EQ(Bytes(f, f + 4), (Bytes{0x82, 0x7E, 0x01, 0x00}));
  EXPECT_EQ(write_ws_header(f, WsOpcode::kBinary, 65536, nullptr), 10U);
  EXPECT_EQ(Bytes(f, f + 10), (Bytes{0x82, 0x7F, 0, 0, 0, 0, 0, 1, 0, 0}));
}

TEST(WsFrame, MaskingInPiecesEqualsMaskingWhole) {
  const WsMask mask{1, 2, 3, 4};
  Bytes whole(1000), pieces(1000);
  for (std::size_t i = 0; i < whole.size(); ++i)
    whole[i] = pieces[i] = static_cast<std::uint8_t>(i * 7);
  ws_apply_mask(whole, mask);
  for (std::size_t off = 0, n = 1; off < pieces.size(); off += n, n = n * 3 % 37 + 1) {
    const std::size_t len = std::min(n, pieces.size() - off);
    ws_apply_mask(MutableByteSpan(pieces).subspan(off, len), mask, off);
  }
  EXPECT_EQ(whole, pieces);
}

// RFC 6455 §5.3 byte by byte: the oracle for the word-wide masking loops.
void reference_mask(std::uint8_t* dst, const std::uint8_t* src, std::size_t n, const WsMask& m,
                    std::uint64_t offset) {
  for (std::size_t i = 0; i < n; ++i)
    dst[i] = static_cast<std::uint8_t>(src[i] ^ m[(offset + i) % 4]);
}

TEST(WsFrame, MaskingMatchesAByteByByteReferenceAtEveryLengthPhaseAndAlignment) {
  std::mt19937_64 gen(6455);
  const auto byte = [&] { return static_cast<std::uint8_t>(gen()); };
  std::vector<std::size_t> lengths;
  for (std::size_t n = 0; n <= 200; ++n) lengths.push_back(n);
  for (std::size_t n : {255U, 256U, 257U, 1400U, 4095U, 4096U, 4097U, 16383U, 16384U}) {
    lengths.push_back(n);
  }
  constexpr std::size_t kGuard = 80;  // bytes around the range that must stay untouched
  for (const std::size_t n : lengths) {
    for (std::size_t align = 0; align < 64; align += (n > 300 ? 13 : 1)) {
      const WsMask mask{byte(), byte(), byte(), byte()};
      const std::uint64_t offset = gen() % (n > 300 ? 16 : 9);
      Bytes src(n + 2 * kGuard + 64);
      for (auto& b : src) b = byte();
      Bytes in_place = src, copied = src;
      Bytes expect = src;
      const std::size_t at = kGuard + align;
      reference_mask(expect.data() + at, src.data() + at, n, mask, offset);
      ws_apply_mask(MutableByteSpan(in_place.data() + at, n), mask, offset);
      EXPECT_EQ(in_place, expect) << "n=" << n << " align=" << align << " offset=" << offset;
      // Copying from a source at another alignment into the same place, in every form of
      // the loop this CPU has.
      const std::size_t src_at = kGuard + (align * 7 + 5) % 64;
      reference_mask(expect.data() + at, src.data() + src_at, n, mask, offset);
      for (const auto form : {WsMaskForm::kWords8, WsMaskForm::kVec16, WsMaskForm::kVec32}) {
        if (!ws_mask_form_available(form)) continue;
        copied = src;
        ws_copy_masked_as(form, copied.data() + at, src.data() + src_at, n, mask, offset);
        EXPECT_EQ(copied, expect) << "copy n=" << n << " align=" << align << " offset=" << offset
                                  << " form=" << static_cast<int>(form);
        in_place = src;
        ws_copy_masked_as(form, in_place.data() + src_at, in_place.data() + src_at, n, mask,
                          offset);
        copied = src;
        reference_mask(copied.data() + src_at, src.data() + src_at, n, mask, offset);
        EXPECT_EQ(in_place, copied) << "in place n=" << n << " form=" << static_cast<int>(form);
      }
    }
  }
}

TEST(WsFrame, ParserNeedsMoreAndRefusesWhatTheFrontNeverSends) {
  const std::uint8_t partial[] = {0x82, 0x7F, 0, 0};
  auto p = parse_ws_header(ByteSpan(partial), false);
  ASSERT_TRUE(p);
  EXPECT_FALSE(p->has_value());
  struct Case {
    Bytes bytes;
    bool from_client;
    WsFrameError e;
  } cases[] = {
      {{0x82, 0x7F, 0x80, 0, 0, 0, 0, 0, 0, 0}, false, WsFrameError::kTooLong},  // 2^63
      {{0x82, 0x7F, 0, 0, 0, 0, 0, 0, 0x40, 0x01}, false, WsFrameError::kTooLong},
      {{0x82, 0x7E, 0x40, 0x01}, false, WsFrameError::kTooLong},  // 16385
      {{0xC2, 0x00}, false, WsFrameError::kReservedBits},
      {{0x83, 0x00}, false, WsFrameError::kReservedOpcode},
      {{0x8B, 0x00}, false, WsFrameError::kReservedOpcode},
      {{0x89, 0x7E, 0x00, 0x7E}, false, WsFrameError::kControlTooLong},
      {{0x09, 0x00}, false, WsFrameError::kControlFragmented},
      {{0x82, 0x00}, true, WsFrameError::kMaskExpected},
      {{0x82, 0x80, 1, 2, 3, 4}, false, WsFrameError::kMaskUnexpected},
  };
  for (const auto& c : cases) {
    auto r = parse_ws_header(c.bytes, c.from_client);
    ASSERT_FALSE(r) << to_hex(c.bytes);
    EXPECT_EQ(r.error(), c.e) << to_hex(c.bytes);
  }
  // The largest frame the front sends parses.
  const std::uint8_t max[] = {0x82, 0x7E, 0x40, 0x00};
  auto m = parse_ws_header(ByteSpan(max), false);
  ASSERT_TRUE(m && m->has_value());
  EXPECT_EQ((*m)->length, kWsMaxPayload);
}

}  // namespace
}  // namespace qeli::wire
