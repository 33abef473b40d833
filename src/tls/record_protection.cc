#include "tls/record_protection.h"

#include <algorithm>

#include "base/endian.h"

namespace qeli::tls {
namespace {

crypto::Aead make_aead(CipherSuite suite, const Secret& secret, std::array<std::uint8_t, 12>& iv) {
  TrafficKeys k = traffic_keys(suite, secret);
  iv = k.iv;
  return crypto::Aead(aead_of(suite), k.key_span());
}

}  // namespace

RecordProtection::RecordProtection(CipherSuite suite, const Secret& traffic_secret)
    : suite_(suite), aead_(make_aead(suite, traffic_secret, iv_)), limit_(record_limit_of(suite)) {}

void RecordProtection::rekey(const Secret& traffic_secret) {
  aead_ = make_aead(suite_, traffic_secret, iv_);
  seq_ = 0;
}

std::array<std::uint8_t, kAeadNonceSize> RecordProtection::nonce() const {
  std::array<std::uint8_t, kAeadNonceSize> n = iv_;
  for (int i = 0; i < 8; ++i) n[4 + i] ^= static_cast<std::uint8_t>(seq_ >> (56 - 8 * i));
  return n;
}

Result<std::size_t, TlsError> RecordProtection::seal(MutableByteSpan record,
                                                     std::size_t content_len, ContentType type,
                                                     std::size_t padding) {
  if (exhausted()) return fail(TlsError::kKeyLimit);
  const std::size_t inner = content_len + 1 + padding;
  if (inner > kMaxInnerPlaintext) return fail(TlsError::kRecordOverflow);
  const std::size_t total = kRecordHeaderSize + inner + kAeadTagSize;
  if (record.size() < total) return fail(TlsError::kInternal);
  std::uint8_t* p = record.data();
  p[0] = static_cast<std::uint8_t>(ContentType::kApplicationData);
  store_be16(p + 1, kRecordVersionTls12);
  store_be16(p + 3, static_cast<std::uint16_t>(inner + kAeadTagSize));
  p[kRecordHeaderSize + content_len] = static_cast<std::uint8_t>(type);
  for (std::size_t i = 0; i < padding; ++i) p[kRecordHeaderSize + content_len + 1 + i] = 0;
  const auto n = nonce();
  if (!aead_.seal(
          n, {p, kRecordHeaderSize}, {p + kRecordHeaderSize, inner},
          std::span<std::uint8_t, kAeadTagSize>(p + kRecordHeaderSize + inner, kAeadTagSize))) {
    return fail(TlsError::kInternal);
  }
  ++seq_;
  return total;
}

Result<OpenedRecord, TlsError> RecordProtection::open(MutableByteSpan record) {
  if (record.size() < kRecordHeaderSize) return fail(TlsError::kDecode);
  const std::size_t len = load_be16(record.data() + 3);
  if (record.size() != kRecordHeaderSize + len) return fail(TlsError::kDecode);
  if (len > kMaxCiphertext) return fail(TlsError::kRecordOverflow);
  if (len < kAeadTagSize + 1) return fail(TlsError::kBadRecordMac);  // no room for the type
  if (seq_ == ~std::uint64_t{0}) return fail(TlsError::kKeyLimit);   // §5.3: never wrap
  const std::size_t inner = len - kAeadTagSize;
  std::uint8_t* p = record.data();
  const auto n = nonce();
  if (!aead_.open(n, {p, kRecordHeaderSize}, {p + kRecordHeaderSize, inner},
                  std::span<const std::uint8_t, kAeadTagSize>(p + kRecordHeaderSize + inner,
                                                              kAeadTagSize))) {
    return fail(TlsError::kBadRecordMac);
  }
  ++seq_;
  if (inner > kMaxInnerPlaintext) return fail(TlsError::kRecordOverflow);
  // §5.4: the type is the last non-zero byte; all-zero plaintext is unexpected_message.
  std::size_t end = inner;
  while (end > 0 && p[kRecordHeaderSize + end - 1] == 0) --end;
  if (end == 0) return fail(TlsError::kUnexpectedMessage);
  const auto type = static_cast<ContentType>(p[kRecordHeaderSize + end - 1]);
  const std::size_t content = end - 1;
  switch (type) {
    case ContentType::kApplicationData: break;
    case ContentType::kHandshake:
    case ContentType::kAlert:
      if (content == 0) return fail(TlsError::kUnexpectedMessage);
      break;
    default: return fail(TlsError::kUnexpectedMessage);
  }
  return OpenedRecord{type, {p + kRecordHeaderSize, content}};
}

void append_fatal_alert(Bytes& out, TlsError e, CipherSuite suite, const Secret* handshake_key) {
  const auto a = alert_for(e);
  if (!a) return;
  const std::uint8_t body[2] = {static_cast<std::uint8_t>(AlertLevel::kFatal),
                                static_cast<std::uint8_t>(*a)};
  if (handshake_key != nullptr) {
    RecordProtection p(suite, *handshake_key);
    Bytes rec(kRecordHeaderSize + 2 + seal_tail(0));
    std::copy(body, body + 2, rec.begin() + kRecordHeaderSize);
    if (auto n = p.seal(rec, 2, ContentType::kAlert); n) {
      rec.resize(*n);
      append(out, rec);
    }
  } else {
    const std::uint8_t rec[7] = {
        static_cast<std::uint8_t>(ContentType::kAlert), 0x03, 0x03, 0, 2, body[0], body[1]};
    append(out, rec);
  }
}

}  // namespace qeli::tls
