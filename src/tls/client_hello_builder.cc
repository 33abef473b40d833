#include "tls/client_hello_builder.h"

#include <cstdlib>
#include <initializer_list>
#include <vector>

#if defined(__aarch64__)
#include <asm/hwcap.h>
#include <sys/auxv.h>
#endif

#include "tls/hello_writer.h"
#include "wire/hello_parts.h"

namespace qeli::tls {
namespace {

using wire::ByteWriter;
using wire::random_grease;
using wire::write_extension;

// The handshake message's bytes outside its extensions, for the padding arithmetic:
// header(4), version(2), random(32), session id(1 + 32), cipher suites (2 + GREASE and
// ours, 2 each), compression(2), extensions length(2).
constexpr std::size_t kHelloFixedBytes =
    4 + 2 + 32 + 1 + 32 + 2 + 2 * (1 + kChromeCipherSuites.size()) + 2 + 2;

// Chromium 156's signature_algorithms after its GREASE entry (fixtures README).
constexpr std::uint16_t kChromeSigalgs[] = {sigscheme::kMlDsa44,
                                            sigscheme::kMlDsa65,
                                            sigscheme::kMlDsa87,
                                            sigscheme::kEcdsaSecp256r1Sha256,
                                            sigscheme::kRsaPssRsaeSha256,
                                            sigscheme::kRsaPkcs1Sha256,
                                            sigscheme::kEcdsaSecp384r1Sha384,
                                            sigscheme::kRsaPssRsaeSha384,
                                            sigscheme::kRsaPkcs1Sha384,
                                            sigscheme::kRsaPssRsaeSha512,
                                            sigscheme::kRsaPkcs1Sha512};
// 0.7.16's (and uTLS ≤ 133's) eight.
constexpr std::uint16_t kLegacySigalgs[] = {
    sigscheme::kEcdsaSecp256r1Sha256, sigscheme::kRsaPssRsaeSha256, sigscheme::kRsaPkcs1Sha256,
    sigscheme::kEcdsaSecp384r1Sha384, sigscheme::kRsaPssRsaeSha384, sigscheme::kRsaPkcs1Sha384,
    sigscheme::kRsaPssRsaeSha512,     sigscheme::kRsaPkcs1Sha512};

// The 28 trust-anchor IDs of Chromium 156 (draft-ietf-tls-trust-anchor-ids), as relative
// OID arcs, in its order: 44947.2.{…}, 52580.200109.1.{…}, 11129.9.{…} (reality-tls.md B.3).
struct AnchorFamily {
  std::initializer_list<std::uint32_t> prefix;
  std::initializer_list<std::uint32_t> last;
};
const AnchorFamily kTrustAnchors[] = {
    {{44947, 2}, {1, 6, 13, 14, 15, 18, 19, 20}},
    {{52580, 200109, 1}, {7, 8, 9, 10, 11, 12, 13, 18, 19}},
    {{11129, 9}, {1, 4, 5, 6, 7, 8, 10, 11, 12, 13, 15}},
};

// One arc in base 128, high groups first, continuation bit on all but the last (X.690).
void base128(Bytes& out, std::uint32_t v) {
  std::uint8_t tmp[5];
  int n = 0;
  do {
    tmp[n++] = static_cast<std::uint8_t>(v & 0x7F);
    v >>= 7;
  } while (v != 0);
  while (n > 1) out.push_back(static_cast<std::uint8_t>(tmp[--n] | 0x80));
  out.push_back(tmp[0]);
}

Bytes trust_anchors_body() {
  Bytes list;
  for (const AnchorFamily& f : kTrustAnchors) {
    for (std::uint32_t last : f.last) {
      Bytes id;
      for (std::uint32_t a : f.prefix) base128(id, a);
      base128(id, last);
      list.push_back(static_cast<std::uint8_t>(id.size()));
      append(list, id);
    }
  }
  Bytes body;
  ByteWriter w(body);
  w.vec16(list);
  return body;
}

void u16_list_ext(ByteWriter& w, std::uint16_t type, std::uint16_t grease,
                  std::span<const std::uint16_t> values, int length_width) {
  w.u16(type);
  const std::size_t ext = w.open_length(2);
  const std::size_t list = w.open_length(length_width);
  if (grease != 0) w.u16(grease);
  for (std::uint16_t v : values) w.u16(v);
  w.close_length(list, length_width);
  w.close_length(ext, 2);
}

void key_share_ext(ByteWriter& w, std::uint16_t grease_group, const ClientKeyShares& k) {
  w.u16(ext::kKeyShare);
  const std::size_t ext = w.open_length(2);
  const std::size_t list = w.open_length(2);
  w.u16(grease_group);  // RFC 8701 §3.1: a GREASE share with a 1-byte body (BoringSSL: 00)
  w.u16(1);
  w.u8(0);
  w.u16(group::kX25519MlKem768);
  w.u16(static_cast<std::uint16_t>(kHybridClientShareSize));
  w.bytes(k.mlkem->public_key);
  w.bytes(k.hybrid_x25519.public_key);
  w.u16(group::kX25519);
  w.u16(static_cast<std::uint16_t>(kX25519ShareSize));
  w.bytes(k.x25519.public_key);
  w.close_length(list, 2);
  w.close_length(ext, 2);
}

// ECH GREASE (BoringSSL setup_ech_grease; reality-tls.md B.5): outer type 0, HKDF-SHA256,
// AES-128-GCM or ChaCha20, a random config_id, a fresh X25519 enc, and a random payload of
// 32·{4..7} + 16 bytes.
void ech_grease_ext(ByteWriter& w, bool aes, crypto::Rng& rng) {
  std::uint8_t config_id = 0;
  rng.fill({&config_id, 1});
  const crypto::X25519KeyPair enc = crypto::x25519_generate(rng);
  const std::size_t payload = 32 * rng.uniform(4, 7) + 16;
  Bytes random_payload(payload);
  rng.fill(random_payload);
  w.u16(ext::kEncryptedClientHello);
  const std::size_t ext = w.open_length(2);
  w.u8(0);        // outer
  w.u16(0x0001);  // HKDF-SHA256
  w.u16(aes ? 0x0001 : 0x0003);
  w.u8(config_id);
  w.vec16(enc.public_key);
  w.u16(static_cast<std::uint16_t>(payload));
  w.bytes(random_payload);
  w.close_length(ext, 2);
}

template <class F>
void add_block(std::vector<Bytes>& blocks, F&& build) {
  Bytes b;
  ByteWriter w(b);
  build(w);
  blocks.push_back(std::move(b));
}

// The first six extensions, which both profiles send alike and in this order before
// ALPN. The order matters: it is the input of the shuffle.
void add_leading_blocks(std::vector<Bytes>& blocks, const ClientHelloParams& p,
                        std::uint16_t grease_group) {
  add_block(blocks, [&](ByteWriter& w) { wire::write_server_name(w, p.server_name); });
  add_block(blocks,
            [&](ByteWriter& w) { write_extension(w, ext::kExtendedMasterSecret, ByteSpan{}); });
  add_block(blocks, [&](ByteWriter& w) { write_extension(w, ext::kRenegotiationInfo, {0x00}); });
  add_block(blocks, [&](ByteWriter& w) {
    const std::uint16_t groups[] = {group::kX25519MlKem768, group::kX25519, group::kSecp256r1,
                                    group::kSecp384r1};
    u16_list_ext(w, ext::kSupportedGroups, grease_group, groups, 2);
  });
  add_block(blocks, [&](ByteWriter& w) { write_extension(w, ext::kEcPointFormats, {0x01, 0x00}); });
  add_block(blocks, [&](ByteWriter& w) { write_extension(w, ext::kSessionTicket, ByteSpan{}); });
}

// status_request … compress_certificate, which both profiles send after ALPN: only the
// signature_algorithms list and its GREASE entry (`grease_sigalg`, 0 = none) differ.
void add_trailing_blocks(std::vector<Bytes>& blocks, const ClientKeyShares& keys,
                         std::uint16_t grease_group, std::uint16_t grease_sigalg,
                         std::span<const std::uint16_t> sigalgs, std::uint16_t grease_version) {
  add_block(blocks, [&](ByteWriter& w) {
    write_extension(w, ext::kStatusRequest, {0x01, 0x00, 0x00, 0x00, 0x00});
  });
  add_block(blocks, [&](ByteWriter& w) {
    u16_list_ext(w, ext::kSignatureAlgorithms, grease_sigalg, sigalgs, 2);
  });
  add_block(blocks, [&](ByteWriter& w) {
    write_extension(w, ext::kSignedCertificateTimestamp, ByteSpan{});
  });
  add_block(blocks, [&](ByteWriter& w) { key_share_ext(w, grease_group, keys); });
  add_block(blocks, [&](ByteWriter& w) {
    write_extension(w, ext::kPskKeyExchangeModes, {0x01, 0x01});
  });
  add_block(blocks, [&](ByteWriter& w) {
    const std::uint16_t versions[] = {kVersionTls13, kLegacyVersion};
    u16_list_ext(w, ext::kSupportedVersions, grease_version, versions, 1);
  });
  add_block(blocks, [&](ByteWriter& w) {
    write_extension(w, ext::kCompressCertificate, {0x02, 0x00, 0x02});
  });
}

// BoringSSL's padding rule (RFC 7685): a hello of 256..511 bytes (handshake header
// included) is padded to 512, with a body of at least 1 byte. `hello_len` excludes it.
void chromium_padding(ByteWriter& w, std::size_t hello_len) {
  if (hello_len <= 0xFF || hello_len >= 0x200) return;
  std::size_t pad = 0x200 - hello_len;
  pad = pad >= 4 + 1 ? pad - 4 : 1;
  w.u16(ext::kPadding);
  w.u16(static_cast<std::uint16_t>(pad));
  w.zeros(pad);
}

Bytes chromium_extensions(const ClientHelloParams& p, const ClientKeyShares& keys,
                          crypto::Rng& rng) {
  // BoringSSL draws its GREASE seeds first; the slots are independent except that
  // extension 2 is forced to differ from extension 1 (XOR 0x1010).
  const std::uint16_t grease_group = random_grease(rng);
  const std::uint16_t grease_sigalg = random_grease(rng);
  const std::uint16_t grease_version = random_grease(rng);
  const std::uint16_t grease_ext1 = random_grease(rng);
  std::uint16_t grease_ext2 = random_grease(rng);
  if (grease_ext2 == grease_ext1) grease_ext2 ^= 0x1010;
  const bool h2 = p.alpn == HelloAlpn::kH2AndHttp11;

  std::vector<Bytes> blocks;
  add_leading_blocks(blocks, p, grease_group);
  add_block(blocks, [&](ByteWriter& w) {
    if (h2) {
      wire::write_protocol_list(w, ext::kAlpn, {"h2", "http/1.1"});
    } else {
      wire::write_protocol_list(w, ext::kAlpn, {"http/1.1"});
    }
  });
  add_trailing_blocks(blocks, keys, grease_group, grease_sigalg, kChromeSigalgs, grease_version);
  if (h2) {
    add_block(blocks, [&](ByteWriter& w) { wire::write_protocol_list(w, ext::kAlps, {"h2"}); });
  }
  add_block(blocks,
            [&](ByteWriter& w) { write_extension(w, ext::kTrustAnchors, trust_anchors_body()); });
  add_block(blocks, [&](ByteWriter& w) { ech_grease_ext(w, p.aes_hardware, rng); });
  wire::shuffle_blocks(blocks, rng);

  Bytes out;
  ByteWriter w(out);
  write_extension(w, grease_ext1, ByteSpan{});
  for (const Bytes& b : blocks) w.bytes(b);
  write_extension(w, grease_ext2, {0x00});
  // Handshake message length without padding: header(4) + fixed fields + ext length(2).
  chromium_padding(w, kHelloFixedBytes + out.size());
  return out;
}

Bytes legacy_extensions(const ClientHelloParams& p, const ClientKeyShares& keys, crypto::Rng& rng) {
  const std::uint16_t grease_first = random_grease(rng);
  std::uint16_t grease_last = random_grease(rng);
  while (grease_last == grease_first) grease_last = random_grease(rng);
  const std::uint16_t grease_group = random_grease(rng);
  const std::uint16_t grease_version = random_grease(rng);

  std::vector<Bytes> blocks;
  add_leading_blocks(blocks, p, grease_group);
  add_block(blocks, [&](ByteWriter& w) {
    wire::write_protocol_list(w, ext::kAlpn, {"h2", "http/1.1"});
  });
  add_trailing_blocks(blocks, keys, grease_group, 0, kLegacySigalgs, grease_version);
  add_block(blocks, [&](ByteWriter& w) { wire::write_protocol_list(w, ext::kAlpsOld, {"h2"}); });
  wire::shuffle_blocks(blocks, rng);

  Bytes out;
  ByteWriter w(out);
  write_extension(w, grease_first, ByteSpan{});
  for (const Bytes& b : blocks) w.bytes(b);
  write_extension(w, grease_last, ByteSpan{});
  // 0.7.16 always appends padding to 512 bytes (handshake message), zero-length with the
  // hybrid share; its arithmetic counts the padding extension's own 4 bytes.
  const std::size_t projected = kHelloFixedBytes + out.size() + 4;
  const std::size_t pad = projected < 512 ? 512 - projected : 0;
  w.u16(ext::kPadding);
  w.u16(static_cast<std::uint16_t>(pad));
  w.zeros(pad);
  return out;
}

}  // namespace

const char* to_string(HelloProfile p) {
  switch (p) {
    case HelloProfile::kChromium156: return "chromium-156";
    case HelloProfile::kQeli0716: return "qeli-0.7.16";
  }
  return "?";
}

bool cpu_has_aes() {
#if defined(__x86_64__) || defined(__i386__)
  return __builtin_cpu_supports("aes");
#elif defined(__aarch64__)
  return (getauxval(AT_HWCAP) & HWCAP_AES) != 0;
#else
  return false;
#endif
}

BuiltClientHello build_client_hello(const ClientHelloParams& p, crypto::Rng& rng) {
  if (p.server_name.empty() || p.server_name.size() > kMaxServerNameSize) std::abort();
  BuiltClientHello out;
  rng.fill(out.random);
  const std::uint16_t grease_cipher = random_grease(rng);
  if (p.profile == HelloProfile::kChromium156) {
    out.keys = generate_client_key_shares(rng, true);
  } else {
    // 0.7.16: one X25519 key serves both shares.
    out.keys.x25519 = crypto::x25519_generate(rng);
    out.keys.hybrid_x25519.private_key = out.keys.x25519.private_key.clone();
    out.keys.hybrid_x25519.public_key = out.keys.x25519.public_key;
    out.keys.mlkem = crypto::mlkem768_generate(rng);
  }
  const Bytes exts = p.profile == HelloProfile::kChromium156 ? chromium_extensions(p, out.keys, rng)
                                                             : legacy_extensions(p, out.keys, rng);
  std::array<std::uint16_t, 1 + kChromeCipherSuites.size()> suites{};
  suites[0] = grease_cipher;
  for (std::size_t i = 0; i < kChromeCipherSuites.size(); ++i)
    suites[i + 1] = kChromeCipherSuites[i];
  out.record = write_client_hello_record(p.record_version, out.random, p.session_id, suites, exts);
  return out;
}

}  // namespace qeli::tls
