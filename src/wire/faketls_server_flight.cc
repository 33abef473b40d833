#include "wire/faketls_server_flight.h"

#include <algorithm>

#include "wire/byte_io.h"

namespace qeli::wire {
namespace {

constexpr std::uint16_t kExtSupportedVersions = 0x002B;
constexpr std::uint16_t kExtKeyShare = 0x0033;

void random_bytes(ByteWriter& w, crypto::Rng& rng, std::size_t n) {
  Bytes b(n);
  rng.fill(b);
  w.bytes(b);
}

// record(type) { handshake(msg) { body } }
template <class F>
Bytes record_with_message(std::uint8_t content, std::uint8_t msg, const F& body) {
  Bytes out;
  ByteWriter w(out);
  w.u8(content);
  w.u16(kRecordVersion);
  const std::size_t rec = w.open_length(2);
  w.u8(msg);
  const std::size_t hs = w.open_length(3);
  body(w);
  w.close_length(hs, 3);
  w.close_length(rec, 2);
  return out;
}

}  // namespace

Bytes build_server_hello(const ServerHelloParams& p) {
  return record_with_message(kContentHandshake, 0x02, [&](ByteWriter& w) {
    w.u16(0x0303);
    w.bytes(p.random);
    w.u8(static_cast<std::uint8_t>(kSessionIdSize));
    w.bytes(p.session_id);
    w.u16(0x1301);
    w.u8(0);
    const std::size_t exts = w.open_length(2);
    w.u16(kExtSupportedVersions);
    w.u16(2);
    w.u16(0x0304);
    w.u16(kExtKeyShare);
    const std::size_t ext = w.open_length(2);
    const std::size_t entry = w.open_length(2);  // qeli's non-standard extra length
    w.u16(kGroupX25519MlKem768);
    w.u16(static_cast<std::uint16_t>(kServerHybridShareSize));
    w.bytes(p.mlkem_ct);
    w.bytes(p.x25519);
    w.close_length(entry, 2);
    w.close_length(ext, 2);
    w.close_length(exts, 2);
  });
}

Result<ServerHello, HelloError> parse_server_hello(ByteSpan record) {
  ByteReader rr(record);
  std::uint8_t type = 0;
  std::uint16_t version = 0;
  ByteSpan payload;
  if (!rr.u8(type) || !rr.u16(version) || type != kContentHandshake || version != kRecordVersion ||
      !rr.vec16(payload) || !rr.empty()) {
    return fail(HelloError::kBadRecord);
  }
  if (payload.size() > kMaxHandshakeRecordPayload) return fail(HelloError::kTooLarge);
  ByteReader r(payload);
  std::uint8_t msg = 0;
  std::uint32_t len = 0;
  if (!r.u8(msg) || msg != 0x02) return fail(HelloError::kWrongMessage);
  if (!r.u24(len) || len != r.remaining()) return fail(HelloError::kMalformed);
  std::uint16_t legacy = 0, cipher = 0;
  std::uint8_t comp = 0;
  ByteSpan random, sid, exts;
  if (!r.u16(legacy) || !r.bytes(kRandomSize, random) || !r.vec8(sid) || !r.u16(cipher) ||
      !r.u8(comp) || !r.vec16(exts) || !r.empty() || sid.size() > kSessionIdSize) {
    return fail(HelloError::kMalformed);
  }
  if (legacy != 0x0303 || cipher != 0x1301 || comp != 0) {
    return fail(HelloError::kUnexpectedVersion);
  }
  ServerHello sh;
  bool found = false;
  ByteReader er(exts);
  while (!er.empty()) {
    std::uint16_t ext = 0;
    ByteSpan data;
    if (!er.u16(ext) || !er.vec16(data)) return fail(HelloError::kMalformed);
    if (ext != kExtKeyShare || found) continue;
    ByteReader kr(data);
    ByteSpan entries;
    if (!kr.vec16(entries) || !kr.empty()) return fail(HelloError::kMalformed);
    ByteReader en(entries);
    std::uint16_t group = 0;
    ByteSpan key;
    if (!en.u16(group) || !en.vec16(key) || !en.empty()) return fail(HelloError::kMalformed);
    if (group != kGroupX25519MlKem768) return fail(HelloError::kNoHybridShare);
    if (key.size() != kServerHybridShareSize) return fail(HelloError::kBadShare);
    std::copy_n(key.begin(), kMlKemCtSize, sh.mlkem_ct.begin());
    std::copy_n(key.begin() + kMlKemCtSize, kX25519PublicSize, sh.x25519.begin());
    found = true;
  }
  if (!found) return fail(HelloError::kNoHybridShare);
  return sh;
}

Bytes build_change_cipher_spec() {
  return {kContentChangeCipherSpec, 0x03, 0x03, 0x00, 0x01, 0x01};
}

Bytes build_fake_certificate(crypto::Rng& rng) {
  const std::size_t n = rng.uniform(kCertBlobMin, kCertBlobMax);
  return record_with_message(kContentApplicationData, 0x0B, [&](ByteWriter& w) {
    w.u24(static_cast<std::uint32_t>(n + 6));  // certificate_list length
    w.u24(static_cast<std::uint32_t>(n));      // cert_data length
    // A DER SEQUENCE header so the blob starts like an X.509 certificate.
    w.u8(0x30);
    w.u8(0x82);
    w.u16(static_cast<std::uint16_t>(n - 4));
    random_bytes(w, rng, n - 4);
    w.u24(0);
  });
}

Bytes build_fake_finished(crypto::Rng& rng) {
  return record_with_message(kContentApplicationData, 0x14,
                             [&](ByteWriter& w) { random_bytes(w, rng, kFinishedSize); });
}

Bytes build_fake_new_session_ticket(crypto::Rng& rng) {
  const std::size_t ticket = rng.uniform(kTicketMin, kTicketMax);
  return record_with_message(kContentApplicationData, 0x04, [&](ByteWriter& w) {
    w.u32(kTicketLifetimeSeconds);
    random_bytes(w, rng, 4);  // age_add
    w.u8(4);
    random_bytes(w, rng, 4);  // nonce
    w.u16(static_cast<std::uint16_t>(ticket));
    random_bytes(w, rng, ticket);
    w.u16(0);
  });
}

Status<HelloError> check_flight_record(FlightRecord expected, ByteSpan record) {
  if (expected == FlightRecord::kChangeCipherSpec) {
    const Bytes ccs = build_change_cipher_spec();
    if (record.size() != ccs.size() || !std::equal(ccs.begin(), ccs.end(), record.begin())) {
      return fail(HelloError::kWrongMessage);
    }
    return {};
  }
  ByteReader rr(record);
  std::uint8_t type = 0, msg = 0;
  std::uint16_t version = 0;
  std::uint32_t len = 0;
  ByteSpan payload;
  if (!rr.u8(type) || !rr.u16(version) || type != kContentApplicationData ||
      version != kRecordVersion || !rr.vec16(payload) || !rr.empty()) {
    return fail(HelloError::kBadRecord);
  }
  ByteReader r(payload);
  const std::uint8_t want = expected == FlightRecord::kCertificate ? 0x0B
                            : expected == FlightRecord::kFinished  ? 0x14
                                                                   : 0x04;
  if (!r.u8(msg) || msg != want) return fail(HelloError::kWrongMessage);
  if (!r.u24(len) || len != r.remaining()) return fail(HelloError::kMalformed);
  if (expected == FlightRecord::kFinished && len != kFinishedSize) {
    return fail(HelloError::kMalformed);
  }
  return {};
}

}  // namespace qeli::wire
