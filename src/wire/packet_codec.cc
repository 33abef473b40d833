#include "wire/packet_codec.h"

#include <algorithm>

#include <cstring>

#include "base/endian.h"

namespace qeli::wire {

const char* to_string(SealError e) {
  switch (e) {
    case SealError::kTooLarge: return "record too large";
    case SealError::kBufferTooSmall: return "buffer too small";
    case SealError::kCounterExhausted: return "send counter exhausted";
    case SealError::kCrypto: return "aead failure";
  }
  return "?";
}

const char* to_string(OpenError e) {
  switch (e) {
    case OpenError::kTruncated: return "truncated record";
    case OpenError::kBadHeader: return "bad record header";
    case OpenError::kLengthMismatch: return "record length mismatch";
    case OpenError::kTooSmall: return "record too small";
    case OpenError::kTooLarge: return "record too large";
    case OpenError::kAuthFailed: return "record authentication failed";
    case OpenError::kBadPadding: return "bad padding length";
    case OpenError::kReplay: return "replayed record";
  }
  return "?";
}

PacketCodec::PacketCodec(Framing framing, std::span<const std::uint8_t, 32> key,
                         std::span<const std::uint8_t, 4> seed)
    : framing_(framing), aead_(key), prp_(std::make_unique<crypto::NoncePrp>(key)) {
  std::memcpy(seed_.data(), seed.data(), seed_.size());
}

PacketCodec::PacketCodec(Framing framing, const crypto::Key32& key, crypto::Rng& rng)
    : framing_(framing), aead_(key.span()), prp_(std::make_unique<crypto::NoncePrp>(key.span())) {
  rng.fill(seed_);
}

PacketCodec::~PacketCodec() = default;

Result<std::size_t, SealError> PacketCodec::seal_in_place(MutableByteSpan buf, std::size_t data_len,
                                                          std::size_t padding_len) {
  if (data_len > kMaxTunnelMtu || padding_len > kMaxTunnelMtu - data_len) {
    return fail(SealError::kTooLarge);
  }
  const std::size_t total = record_size(framing_, data_len, padding_len);
  if (buf.size() < total) return fail(SealError::kBufferTooSmall);
  if (send_counter_ >= kSealCounterLimit) return fail(SealError::kCounterExhausted);

  const std::size_t hdr = header_size(framing_);
  const std::size_t payload_len = total - hdr;  // ≤ kMaxRecordPayload by the check above
  std::uint8_t* p = buf.data();
  if (framing_ == Framing::kTls) {
    p[0] = kContentApplicationData;
    store_be16(p + 1, kRecordVersion);
    store_be16(p + 3, static_cast<std::uint16_t>(payload_len));
  } else {
    store_be16(p, static_cast<std::uint16_t>(payload_len));
  }
  const crypto::Nonce12 nonce = send_tls_bound_ ? crypto::Nonce12{}
                                : roam_         ? roam_->nonce(send_counter_)
                                                : prp_->permute(seed_, send_counter_);
  std::memcpy(p + hdr, nonce.data(), kNonceSize);

  std::uint8_t* pt = p + hdr + kNonceSize;
  const std::size_t pt_len = kCounterSize + data_len + padding_len + kPadLenSize;
  store_be64(pt, send_counter_);
  std::memset(pt + kCounterSize + data_len, 0, padding_len);
  store_be16(pt + kCounterSize + data_len + padding_len, static_cast<std::uint16_t>(padding_len));

  std::uint8_t* tag = pt + pt_len;
  if (send_tls_bound_) {
    std::memset(tag, 0, kTagSize);  // the TLS record below protects it
  } else if (!aead_.seal(std::span<const std::uint8_t, kNonceSize>(nonce),
                         std::span<std::uint8_t>(pt, pt_len),
                         std::span<std::uint8_t, kTagSize>(tag, kTagSize))) {
    return fail(SealError::kCrypto);
  }
  ++send_counter_;
  return total;
}

Result<std::size_t, SealError> PacketCodec::seal(ByteSpan data, std::size_t padding_len,
                                                 MutableByteSpan out) {
  const std::size_t off = seal_headroom(framing_);
  if (data.size() > kMaxTunnelMtu) return fail(SealError::kTooLarge);
  if (out.size() < off + data.size()) return fail(SealError::kBufferTooSmall);
  if (!data.empty()) std::memcpy(out.data() + off, data.data(), data.size());
  return seal_in_place(out, data.size(), padding_len);
}

Result<OpenedRecord, OpenError> PacketCodec::open_in_place(MutableByteSpan record) {
  const std::size_t hdr = header_size(framing_);
  if (record.size() < hdr) return fail(OpenError::kTruncated);
  const std::uint8_t* p = record.data();
  std::size_t payload_len = 0;
  if (framing_ == Framing::kTls) {
    if (p[0] != kContentApplicationData || load_be16(p + 1) != kRecordVersion) {
      return fail(OpenError::kBadHeader);
    }
    payload_len = load_be16(p + 3);
  } else {
    payload_len = load_be16(p);
  }
  if (payload_len > kMaxRecordPayload) return fail(OpenError::kTooLarge);
  if (record.size() != hdr + payload_len) return fail(OpenError::kLengthMismatch);
  if (payload_len < kMinRecordPayload) return fail(OpenError::kTooSmall);

  const std::uint8_t* nonce = p + hdr;
  std::uint8_t* pt = record.data() + hdr + kNonceSize;
  const std::size_t pt_len = payload_len - kNonceSize - kTagSize;
  const std::uint8_t* tag = pt + pt_len;
  const bool tls_bound = accept_tls_bound_ && std::all_of(nonce, nonce + kNonceSize,
                                                          [](std::uint8_t b) { return b == 0; });
  std::optional<RecordAeadKind> kind;
  if (!tls_bound) {
    kind = aead_.open(std::span<const std::uint8_t, kNonceSize>(nonce, kNonceSize),
                      std::span<std::uint8_t>(pt, pt_len),
                      std::span<const std::uint8_t, kTagSize>(tag, kTagSize));
    if (!kind) return fail(OpenError::kAuthFailed);
  }
  // pt_len ≥ counter + padlen by the kMinRecordPayload check.
  const std::uint64_t counter = load_be64(pt);
  const std::size_t pad = load_be16(pt + pt_len - kPadLenSize);
  const std::size_t room = pt_len - kCounterSize - kPadLenSize;
  if (pad > room) return fail(OpenError::kBadPadding);
  // A ChaCha record the AES switch no longer admits is one this peer cannot have sent.
  if (kind && !aead_.admits(*kind, counter)) return fail(OpenError::kAuthFailed);
  if (!replay_.accept(counter)) return fail(OpenError::kReplay);
  if (kind) aead_.opened(*kind, counter, replay_.top());
  return OpenedRecord{MutableByteSpan(pt + kCounterSize, room - pad), counter};
}

}  // namespace qeli::wire
