#include "wire/faketls_client_hello.h"

#include <vector>

#include <algorithm>

#include "wire/byte_io.h"

namespace qeli::wire {
namespace {

constexpr std::uint16_t kExtServerName = 0x0000;
constexpr std::uint16_t kExtSupportedGroups = 0x000A;
constexpr std::uint16_t kExtSignatureAlgorithms = 0x000D;
constexpr std::uint16_t kExtAlpn = 0x0010;
constexpr std::uint16_t kExtPadding = 0x0015;
constexpr std::uint16_t kExtExtendedMasterSecret = 0x0017;
constexpr std::uint16_t kExtCompressCertificate = 0x001B;
constexpr std::uint16_t kExtSupportedVersions = 0x002B;
constexpr std::uint16_t kExtPskModes = 0x002D;
constexpr std::uint16_t kExtKeyShare = 0x0033;

bool is_ip_literal(std::string_view h) {
  if (h.find(':') != std::string_view::npos) return true;  // IPv6 (or [v6])
  if (h.empty()) return false;
  for (char c : h) {
    if (!((c >= '0' && c <= '9') || c == '.')) return false;
  }
  return true;
}

void ext_sni(ByteWriter& w, const Sni& sni) {
  if (sni.kind == Sni::Kind::kHost) {
    write_server_name(w, sni.host);
  } else if (sni.kind == Sni::Kind::kEmptyList) {
    write_extension(w, kExtServerName, {0x00, 0x00});
  } else {
    write_extension(w, kExtServerName, ByteSpan{});
  }
}

void ext_empty(ByteWriter& w, std::uint16_t type) { write_extension(w, type, ByteSpan{}); }

void ext_groups(ByteWriter& w, crypto::Rng& rng) {
  w.u16(kExtSupportedGroups);
  w.u16(10);
  w.u16(8);
  w.u16(random_grease(rng));
  w.u16(kGroupX25519MlKem768);
  w.u16(kGroupX25519);
  w.u16(kGroupSecp256r1);
}

void ext_key_share(ByteWriter& w, const ClientHelloParams& p) {
  w.u16(kExtKeyShare);
  const std::size_t ext = w.open_length(2);
  const std::size_t list = w.open_length(2);
  w.u16(kGroupX25519MlKem768);
  w.u16(static_cast<std::uint16_t>(kClientHybridShareSize));
  w.bytes(p.mlkem_ek);
  w.bytes(p.x25519);
  w.u16(kGroupX25519);
  w.u16(static_cast<std::uint16_t>(kX25519PublicSize));
  w.bytes(p.x25519);
  w.close_length(list, 2);
  w.close_length(ext, 2);
}

}  // namespace

const char* to_string(HelloError e) {
  switch (e) {
    case HelloError::kBadRecord: return "bad handshake record";
    case HelloError::kTooLarge: return "handshake record too large";
    case HelloError::kWrongMessage: return "unexpected handshake message";
    case HelloError::kMalformed: return "malformed hello";
    case HelloError::kNoHybridShare: return "no X25519MLKEM768 key share";
    case HelloError::kNoX25519Share: return "no X25519 key share";
    case HelloError::kBadShare: return "key share of the wrong size";
    case HelloError::kUnexpectedVersion: return "unexpected version or cipher";
  }
  return "?";
}

Sni choose_sni(std::optional<std::string_view> configured, std::string_view connect_host,
               crypto::Rng& rng) {
  if (configured) {
    if (configured->empty() || *configured == "!") return {Sni::Kind::kOmit, {}};
    if (*configured == "~") return {Sni::Kind::kEmptyExtension, {}};
    if (*configured == "@") return {Sni::Kind::kEmptyList, {}};
    return {Sni::Kind::kHost, std::string(configured->substr(0, 255))};
  }
  if (!connect_host.empty() && !is_ip_literal(connect_host)) {
    return {Sni::Kind::kHost, std::string(connect_host.substr(0, 255))};
  }
  const auto i = rng.uniform(0, kDecoySniPool.size() - 1);
  return {Sni::Kind::kHost, std::string(kDecoySniPool[i])};
}

Bytes build_client_hello(const ClientHelloParams& p, crypto::Rng& rng) {
  const std::uint16_t grease_first = random_grease(rng);
  std::uint16_t grease_last = random_grease(rng);
  while (grease_last == grease_first) grease_last = random_grease(rng);
  const std::uint16_t grease_cipher = random_grease(rng);

  // Each shuffled extension is built separately, then ordered by a Fisher-Yates shuffle
  // driven by `rng` (per connection, like Chrome ≥ 110).
  std::vector<Bytes> exts;
  auto add = [&](const auto& build) {
    Bytes e;
    ByteWriter w(e);
    build(w);
    exts.push_back(std::move(e));
  };
  if (p.sni.kind != Sni::Kind::kOmit) add([&](ByteWriter& w) { ext_sni(w, p.sni); });
  add([&](ByteWriter& w) { ext_empty(w, kExtExtendedMasterSecret); });
  add([&](ByteWriter& w) { ext_groups(w, rng); });
  add([&](ByteWriter& w) { ext_key_share(w, p); });
  add([&](ByteWriter& w) { write_extension(w, kExtPskModes, {0x01, 0x01}); });
  add([&](ByteWriter& w) { write_extension(w, kExtSupportedVersions, {0x02, 0x03, 0x04}); });
  add([&](ByteWriter& w) {
    write_extension(
        w, kExtSignatureAlgorithms,
        {0x00, 0x0C, 0x04, 0x03, 0x05, 0x03, 0x06, 0x03, 0x08, 0x04, 0x04, 0x01, 0x05, 0x01});
  });
  add([&](ByteWriter& w) { write_extension(w, kExtCompressCertificate, {0x02, 0x00, 0x02}); });
  add([&](ByteWriter& w) { write_protocol_list(w, kExtAlpn, {"h2", "http/1.1"}); });
  shuffle_blocks(exts, rng);

  Bytes out;
  out.reserve(kClientHelloFixedBytes + 1600 + p.pad_to_min);
  ByteWriter w(out);
  w.u8(kContentHandshake);
  w.u16(kRecordVersion);
  const std::size_t rec = w.open_length(2);
  w.u8(0x01);  // ClientHello
  const std::size_t hs = w.open_length(3);
  w.u16(0x0303);
  w.bytes(p.random);
  w.u8(static_cast<std::uint8_t>(kSessionIdSize));
  w.bytes(p.session_id);
  w.u16(8);
  w.u16(grease_cipher);
  w.u16(0x1301);
  w.u16(0x1302);
  w.u16(0x1303);
  w.u8(1);
  w.u8(0);
  const std::size_t ext_len = w.open_length(2);
  ext_empty(w, grease_first);
  for (const Bytes& e : exts) w.bytes(e);
  ext_empty(w, grease_last);
  // Padding (RFC 7685) so the whole record reaches pad_to_min; 4 = extension header.
  if (p.pad_to_min > w.size() + 4) {
    const std::size_t pad = p.pad_to_min - w.size() - 4;
    w.u16(kExtPadding);
    w.u16(static_cast<std::uint16_t>(pad));
    w.zeros(pad);
  }
  w.close_length(ext_len, 2);
  w.close_length(hs, 3);
  w.close_length(rec, 2);
  return out;
}

namespace {

// Walks the key_share extension data (client form: list length, then entries).
Status<HelloError> parse_client_key_share(ByteSpan data, ClientHello& ch, bool& hybrid,
                                          bool& classic) {
  ByteReader r(data);
  ByteSpan list;
  if (!r.vec16(list) || !r.empty()) return fail(HelloError::kMalformed);
  ByteReader lr(list);
  while (!lr.empty()) {
    std::uint16_t group = 0;
    ByteSpan key;
    if (!lr.u16(group) || !lr.vec16(key)) return fail(HelloError::kMalformed);
    if (group == kGroupX25519MlKem768 && !hybrid) {
      // 0.7.16 takes the first 1184 bytes as the ek; the X25519 half comes from 0x001D.
      if (key.size() < kMlKemEkSize) return fail(HelloError::kBadShare);
      std::copy_n(key.begin(), kMlKemEkSize, ch.mlkem_ek.begin());
      hybrid = true;
    } else if (group == kGroupX25519 && !classic) {
      if (key.size() != kX25519PublicSize) return fail(HelloError::kBadShare);
      std::copy_n(key.begin(), kX25519PublicSize, ch.x25519.begin());
      classic = true;
    }
  }
  return {};
}

std::optional<std::string> parse_sni(ByteSpan data) {
  ByteReader r(data);
  ByteSpan list;
  if (!r.vec16(list)) return std::nullopt;
  ByteReader lr(list);
  std::uint8_t type = 0;
  ByteSpan name;
  if (!lr.u8(type) || type != 0 || !lr.vec16(name) || name.empty()) return std::nullopt;
  return std::string(reinterpret_cast<const char*>(name.data()), name.size());
}

}  // namespace

Result<ClientHello, HelloError> parse_client_hello(ByteSpan record) {
  ByteReader rr(record);
  std::uint8_t type = 0;
  std::uint16_t version = 0;
  ByteSpan payload;
  if (!rr.u8(type) || !rr.u16(version) || type != kContentHandshake || (version >> 8) != 0x03) {
    return fail(HelloError::kBadRecord);
  }
  if (!rr.vec16(payload) || !rr.empty()) return fail(HelloError::kBadRecord);
  if (payload.size() > kMaxHandshakeRecordPayload) return fail(HelloError::kTooLarge);

  ByteReader r(payload);
  std::uint8_t msg = 0;
  std::uint32_t len = 0;
  if (!r.u8(msg) || msg != 0x01) return fail(HelloError::kWrongMessage);
  if (!r.u24(len) || len != r.remaining()) return fail(HelloError::kMalformed);

  ClientHello ch;
  std::uint16_t legacy = 0;
  ByteSpan random, sid, suites, comp, exts;
  if (!r.u16(legacy) || !r.bytes(kRandomSize, random) || !r.vec8(sid) || !r.vec16(suites) ||
      !r.vec8(comp) || !r.vec16(exts) || !r.empty()) {
    return fail(HelloError::kMalformed);
  }
  if (legacy != 0x0303) return fail(HelloError::kUnexpectedVersion);
  if (sid.size() > kSessionIdSize) return fail(HelloError::kMalformed);
  std::copy(random.begin(), random.end(), ch.random.begin());
  std::copy(sid.begin(), sid.end(), ch.session_id.begin());
  ch.session_id_len = sid.size();

  bool hybrid = false, classic = false;
  ByteReader er(exts);
  while (!er.empty()) {
    std::uint16_t ext = 0;
    ByteSpan data;
    if (!er.u16(ext) || !er.vec16(data)) return fail(HelloError::kMalformed);
    if (ext == kExtKeyShare) {
      auto s = parse_client_key_share(data, ch, hybrid, classic);
      if (!s.ok()) return fail(s.error());
    } else if (ext == kExtServerName && !ch.sni) {
      ch.sni = parse_sni(data);
    }
  }
  if (!hybrid) return fail(HelloError::kNoHybridShare);
  if (!classic) return fail(HelloError::kNoX25519Share);
  return ch;
}

}  // namespace qeli::wire
