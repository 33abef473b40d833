#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "base/endian.h"
#include "crypto/random.h"
#include "wire/byte_io.h"
#include "wire/faketls_client_hello.h"
#include "wire/faketls_server_flight.h"

namespace qeli::wire {
namespace {

ClientHelloParams params(std::uint64_t seed, Sni sni = {Sni::Kind::kHost, "example.com"}) {
  crypto::DeterministicRng rng(seed);
  ClientHelloParams p;
  rng.fill(p.random);
  rng.fill(p.session_id);
  rng.fill(p.x25519);
  rng.fill(p.mlkem_ek);
  p.sni = std::move(sni);
  return p;
}

// Extension types in wire order.
std::vector<std::uint16_t> extension_order(ByteSpan ch) {
  ByteReader r(ch.subspan(kClientHelloFixedBytes - 2));
  ByteSpan exts;
  EXPECT_TRUE(r.vec16(exts));
  std::vector<std::uint16_t> out;
  ByteReader er(exts);
  while (!er.empty()) {
    std::uint16_t t = 0;
    ByteSpan d;
    EXPECT_TRUE(er.u16(t) && er.vec16(d));
    out.push_back(t);
  }
  return out;
}

std::size_t find(ByteSpan hay, std::initializer_list<std::uint8_t> needle) {
  const auto it = std::search(hay.begin(), hay.end(), needle.begin(), needle.end());
  return it == hay.end() ? std::string::npos : static_cast<std::size_t>(it - hay.begin());
}

TEST(faketls_client_hello, round_trip_and_fixed_layout) {
  const ClientHelloParams p = params(1);
  crypto::DeterministicRng rng(2);
  const Bytes ch = build_client_hello(p, rng);
  EXPECT_EQ(ch[0], 0x16);
  EXPECT_EQ(load_be16(ch.data() + 1), 0x0303);
  EXPECT_EQ(load_be16(ch.data() + 3), ch.size() - 5);
  EXPECT_EQ(ch[5], 0x01);
  EXPECT_EQ(load_be24(ch.data() + 6), ch.size() - 9);
  EXPECT_EQ(ch[43], 32);  // session id length
  EXPECT_TRUE(is_grease(load_be16(ch.data() + 78)));
  EXPECT_EQ(load_be16(ch.data() + 80), 0x1301);
  // Extensions start after the 90 fixed bytes.
  EXPECT_EQ(load_be16(ch.data() + kClientHelloFixedBytes - 2), ch.size() - kClientHelloFixedBytes);
  auto parsed = parse_client_hello(ch);
  ASSERT_TRUE(parsed.ok()) << to_string(parsed.error());
  EXPECT_EQ(parsed->random, p.random);
  EXPECT_EQ(parsed->session_id, p.session_id);
  EXPECT_EQ(parsed->session_id_len, 32U);
  EXPECT_EQ(parsed->x25519, p.x25519);
  EXPECT_EQ(parsed->mlkem_ek, p.mlkem_ek);
  EXPECT_EQ(parsed->sni, "example.com");
  // 0x11EC share = ek ‖ x25519 (1216 = 0x04C0), then 0x001D with the same x25519.
  const std::size_t at = find(ch, {0x11, 0xEC, 0x04, 0xC0});
  ASSERT_NE(at, std::string::npos);
  EXPECT_TRUE(
      std::equal(p.mlkem_ek.begin(), p.mlkem_ek.end(), ch.begin() + static_cast<long>(at + 4)));
  EXPECT_TRUE(
      std::equal(p.x25519.begin(), p.x25519.end(), ch.begin() + static_cast<long>(at + 4 + 1184)));
  EXPECT_EQ(load_be16(ch.data() + at + 4 + 1216), 0x001D);
}

TEST(faketls_client_hello, grease_first_and_last_and_shuffled_middle) {
  std::set<std::vector<std::uint16_t>> orders;
  for (std::uint64_t s = 0; s < 20; ++s) {
    crypto::DeterministicRng rng(100 + s);
    const auto order = extension_order(build_client_hello(params(1), rng));
    ASSERT_EQ(order.size(), 11U);
    EXPECT_TRUE(is_grease(order.front()));
    EXPECT_TRUE(is_grease(order.back()));
    EXPECT_NE(order.front(), order.back());
    std::set<std::uint16_t> middle(order.begin() + 1, order.end() - 1);
    EXPECT_EQ(middle, (std::set<std::uint16_t>{0x0000, 0x0017, 0x000A, 0x0033, 0x002D, 0x002B,
                                               0x000D, 0x001B, 0x0010}));
    orders.insert(order);
  }
  EXPECT_GT(orders.size(), 15U);  // the order varies per connection
}

TEST(faketls_client_hello, padding_reaches_the_minimum_exactly) {
  crypto::DeterministicRng rng(3);
  const Bytes plain = build_client_hello(params(1), rng);
  for (std::size_t min :
       {std::size_t{1200}, plain.size() + 5, plain.size() + 4, std::size_t{3000}}) {
    ClientHelloParams p = params(1);
    p.pad_to_min = min;
    crypto::DeterministicRng r2(3);
    const Bytes ch = build_client_hello(p, r2);
    if (min > plain.size() + 4) {
      EXPECT_EQ(ch.size(), min);
      EXPECT_EQ(extension_order(ch).back(), 0x0015);
    } else {
      EXPECT_EQ(ch.size(), plain.size());  // already large enough: no padding extension
    }
    EXPECT_TRUE(parse_client_hello(ch).ok());
  }
}

TEST(faketls_client_hello, sni_rules) {
  crypto::DeterministicRng rng(4);
  EXPECT_EQ(choose_sni("!", "vpn.example", rng).kind, Sni::Kind::kOmit);
  EXPECT_EQ(choose_sni("", "vpn.example", rng).kind, Sni::Kind::kOmit);
  EXPECT_EQ(choose_sni("~", "vpn.example", rng).kind, Sni::Kind::kEmptyExtension);
  EXPECT_EQ(choose_sni("@", "vpn.example", rng).kind, Sni::Kind::kEmptyList);
  EXPECT_EQ(choose_sni("cdn.example", "vpn.example", rng).host, "cdn.example");
  EXPECT_EQ(choose_sni(std::nullopt, "vpn.example", rng).host, "vpn.example");
  std::set<std::string> decoys;
  for (int i = 0; i < 50; ++i) {
    for (auto host : {"203.0.113.7", "2001:db8::1"}) {
      const Sni s = choose_sni(std::nullopt, host, rng);
      EXPECT_EQ(s.kind, Sni::Kind::kHost);
      EXPECT_NE(std::find(kDecoySniPool.begin(), kDecoySniPool.end(), s.host), kDecoySniPool.end());
      decoys.insert(s.host);
    }
  }
  EXPECT_EQ(decoys.size(), kDecoySniPool.size());
  // On the wire.
  auto wire_of = [](Sni sni) {
    crypto::DeterministicRng r(5);
    return build_client_hello(params(1, std::move(sni)), r);
  };
  const Bytes omit = wire_of({Sni::Kind::kOmit, {}});
  EXPECT_EQ(extension_order(omit).size(), 10U);
  EXPECT_FALSE(parse_client_hello(omit)->sni.has_value());
  const Bytes empty_ext = wire_of({Sni::Kind::kEmptyExtension, {}});
  EXPECT_NE(find(empty_ext, {0x00, 0x00, 0x00, 0x00, 0x00}), std::string::npos);
  EXPECT_FALSE(parse_client_hello(empty_ext)->sni.has_value());
  const Bytes empty_list = wire_of({Sni::Kind::kEmptyList, {}});
  EXPECT_FALSE(parse_client_hello(empty_list)->sni.has_value());
}

TEST(faketls_client_hello, hello_without_hybrid_share_is_rejected) {
  crypto::DeterministicRng rng(6);
  Bytes ch = build_client_hello(params(1), rng);
  const std::size_t at = find(ch, {0x11, 0xEC, 0x04, 0xC0});
  ASSERT_NE(at, std::string::npos);
  ch[at] = 0x00, ch[at + 1] = 0x17;  // relabel the share as secp256r1
  EXPECT_EQ(parse_client_hello(ch).error(), HelloError::kNoHybridShare);
}

TEST(faketls_client_hello, every_truncation_and_bit_flip_is_handled) {
  crypto::DeterministicRng rng(7);
  const Bytes ch = build_client_hello(params(1), rng);
  for (std::size_t n = 0; n < ch.size(); ++n) {
    EXPECT_FALSE(parse_client_hello(ByteSpan(ch).first(n)).ok()) << n;
  }
  Bytes longer = ch;
  longer.push_back(0);
  EXPECT_FALSE(parse_client_hello(longer).ok());
  // Bit flips: never a crash; flips in a length field must be caught.
  for (std::size_t bit = 0; bit < ch.size() * 8; bit += 3) {
    Bytes c = ch;
    c[bit / 8] ^= static_cast<std::uint8_t>(1U << (bit % 8));
    (void)parse_client_hello(c);
  }
  for (std::size_t byte : {3UL, 4UL, 6UL, 7UL, 8UL}) {
    Bytes c = ch;
    c[byte] ^= 0x01;
    EXPECT_FALSE(parse_client_hello(c).ok()) << byte;
  }
}

ServerHelloParams sh_params() {
  crypto::DeterministicRng rng(8);
  ServerHelloParams p;
  rng.fill(p.random);
  rng.fill(p.session_id);
  rng.fill(p.mlkem_ct);
  rng.fill(p.x25519);
  return p;
}

TEST(faketls_server_flight, server_hello_layout_is_the_reference_one) {
  const ServerHelloParams p = sh_params();
  const Bytes sh = build_server_hello(p);
  // 5 + 4 + 2 + 32 + 33 + 2 + 1 + 2 + 6 + (4 + 2 + 4 + 1120)
  EXPECT_EQ(sh.size(), 1217U);
  EXPECT_EQ(to_hex(ByteSpan(sh).first(9)), "16030304bc020004b8");
  EXPECT_EQ(to_hex(ByteSpan(sh).subspan(76, 3)), "130100");
  // extensions: supported_versions then key_share with the extra 2-byte length (1124).
  EXPECT_EQ(to_hex(ByteSpan(sh).subspan(79, 2 + 6 + 10)), "0470002b0002030400330466046411ec0460");
  EXPECT_TRUE(std::equal(p.mlkem_ct.begin(), p.mlkem_ct.end(), sh.begin() + 97));
  EXPECT_TRUE(std::equal(p.x25519.begin(), p.x25519.end(), sh.begin() + 97 + 1088));
  auto parsed = parse_server_hello(sh);
  ASSERT_TRUE(parsed.ok()) << to_string(parsed.error());
  EXPECT_EQ(parsed->mlkem_ct, p.mlkem_ct);
  EXPECT_EQ(parsed->x25519, p.x25519);
}

TEST(faketls_server_flight, classic_server_hello_is_refused) {
  Bytes sh = build_server_hello(sh_params());
  sh[93] = 0x00, sh[94] = 0x1D;  // group 0x11EC -> 0x001D
  EXPECT_EQ(parse_server_hello(sh).error(), HelloError::kNoHybridShare);
}

TEST(faketls_server_flight, server_hello_truncations_and_flips) {
  const Bytes sh = build_server_hello(sh_params());
  for (std::size_t n = 0; n < sh.size(); ++n)
    EXPECT_FALSE(parse_server_hello(ByteSpan(sh).first(n)).ok());
  for (std::size_t bit = 0; bit < 100 * 8; ++bit) {  // the structured prefix
    Bytes c = sh;
    c[bit / 8] ^= static_cast<std::uint8_t>(1U << (bit % 8));
    auto r = parse_server_hello(c);
    // Flips in random/session id bytes are invisible here (the transcript catches them).
    const std::size_t byte = bit / 8;
    // supported_versions (81..86) is skipped by type; its length bytes still count.
    const bool opaque = (byte >= 11 && byte < 43) || (byte >= 44 && byte < 76) || byte >= 97 ||
                        byte == 81 || byte == 82 || byte == 85 || byte == 86;
    if (!opaque) {
      EXPECT_FALSE(r.ok()) << bit;
    }
  }
}

TEST(faketls_server_flight, flight_records_have_the_reference_shapes) {
  crypto::DeterministicRng rng(9);
  EXPECT_EQ(to_hex(build_change_cipher_spec()), "140303000101");
  EXPECT_TRUE(
      check_flight_record(FlightRecord::kChangeCipherSpec, build_change_cipher_spec()).ok());
  std::set<std::size_t> cert_sizes;
  for (int i = 0; i < 30; ++i) {
    const Bytes cert = build_fake_certificate(rng);
    EXPECT_EQ(cert[0], 0x17);
    EXPECT_EQ(cert[5], 0x0B);
    const std::size_t blob = load_be24(cert.data() + 12);
    EXPECT_GE(blob, kCertBlobMin);
    EXPECT_LE(blob, kCertBlobMax);
    EXPECT_EQ(cert.size(), 5 + 4 + 3 + 3 + blob + 3);
    EXPECT_EQ(cert[15], 0x30);
    cert_sizes.insert(cert.size());
    EXPECT_TRUE(check_flight_record(FlightRecord::kCertificate, cert).ok());
    EXPECT_FALSE(check_flight_record(FlightRecord::kFinished, cert).ok());
    const Bytes fin = build_fake_finished(rng);
    EXPECT_EQ(fin.size(), 41U);
    EXPECT_EQ(to_hex(ByteSpan(fin).first(9)), "170303002414000020");
    EXPECT_TRUE(check_flight_record(FlightRecord::kFinished, fin).ok());
    const Bytes nst = build_fake_new_session_ticket(rng);
    EXPECT_EQ(nst[5], 0x04);
    EXPECT_EQ(load_be32(nst.data() + 9), 7200U);
    const std::size_t ticket = load_be16(nst.data() + 22);
    EXPECT_GE(ticket, kTicketMin);
    EXPECT_LE(ticket, kTicketMax);
    EXPECT_EQ(nst.size(), 24 + ticket + 2);
    EXPECT_TRUE(check_flight_record(FlightRecord::kTicket, nst).ok());
  }
  EXPECT_GT(cert_sizes.size(), 20U);
  EXPECT_FALSE(
      check_flight_record(FlightRecord::kChangeCipherSpec, Bytes{0x14, 3, 3, 0, 1, 2}).ok());
}

}  // namespace
}  // namespace qeli::wire
