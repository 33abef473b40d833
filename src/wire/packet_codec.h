// PacketCodec: qeli's data record (0.7.16 `packet.rs`), sealed and opened IN PLACE in
// caller-owned buffers. docs/PROTOCOL.md "Data records"; vectors: packet-decode.json.
//
//   record    = header ‖ nonce(12) ‖ ChaCha20-Poly1305(plaintext) ‖ tag(16)
//   header    = 17 03 03 ‖ len_be16   (Framing::kTls)   or   len_be16   (Framing::kRaw)
//   len       = 12 + 8 + data + padding + 2 + 16   (≤ kMaxRecordPayload = 16676)
//   plaintext = counter_be64 ‖ data ‖ padding ‖ padding_len_be16
//   nonce     = NoncePrp(key).permute(seed(4), counter)   (seed random per codec)
//
// The AEAD has EMPTY associated data (the header is not authenticated; a 0.7.16 peer
// does the same). The receiver uses the nonce from the wire as is and takes the counter
// from the decrypted plaintext for the 2048-packet replay window, which is applied only
// after the record authenticated and its padding length was valid.
//
// Buffers. Sealing works on a buffer laid out as
//
//   [ seal_headroom(framing) ][ data ][ seal_tailroom(padding) ]
//
// so a TUN read that lands at offset seal_headroom() is sealed without moving a byte.
// Records can be sealed back to back into one large buffer (batched sends): seal into
// `buf.subspan(offset)` and advance `offset` by the returned size. No call allocates.
//
// TLS-bound records (our extension, docs/PROTOCOL.md §16). Inside a TLS 1.3 session whose
// exporter both ends proved to each other (so no one terminates TLS between them), the
// TLS record already gives confidentiality, integrity and order. There a sender may leave
// the inner AEAD out: the same layout with the nonce and the tag all zero and the
// plaintext in clear (set_send_tls_bound). A receiver told so (set_accept_tls_bound)
// takes a record whose nonce is all zero that way — the counter still goes through the
// replay window — and opens every other record as before (an AEAD nonce of twelve zero
// bytes has probability 2^-96). A 0.7.16 peer never sees one: the bit is negotiated.
//
// AES-256-GCM records (our extension, docs/PROTOCOL.md §18): the same layout, nonce and
// counter sealed with AES-256-GCM under a key derived from this direction's key
// (set_send_aes), and a receiver that takes them next to ChaCha ones across the switch
// (set_accept_aes; the rules are in wire/record_aead.h). The nonce permutation, the
// counter and the replay window are the codec's, shared by both AEADs.
//
// Thread-safety: none; one codec per direction per connection, used by one thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "base/bytes.h"
#include "base/result.h"
#include "crypto/nonce_prp.h"
#include "crypto/random.h"
#include "crypto/replay_window.h"
#include "crypto/secret_bytes.h"
#include "wire/limits.h"
#include "wire/record_aead.h"
#include "wire/roam_nonce.h"

namespace qeli::wire {

enum class Framing : std::uint8_t {
  kTls,  ///< `17 03 03 len` (every mode except plain)
  kRaw,  ///< `len` only (plain)
};

constexpr std::size_t header_size(Framing f) {
  return f == Framing::kTls ? kTlsHeaderSize : kRawHeaderSize;
}
/// Bytes before the data when sealing in place: header ‖ nonce ‖ counter.
constexpr std::size_t seal_headroom(Framing f) {
  return header_size(f) + kNonceSize + kCounterSize;
}
/// The larger seal headroom of the two framings: batches that may be sealed in either
/// reserve this much.
inline constexpr std::size_t kMaxSealHeadroom = seal_headroom(Framing::kTls);
/// Bytes after the data when sealing in place: padding ‖ padding_len ‖ tag.
constexpr std::size_t seal_tailroom(std::size_t padding) {
  return padding + kPadLenSize + kTagSize;
}
/// Total record size on the wire for `data` bytes of data and `padding` of padding.
constexpr std::size_t record_size(Framing f, std::size_t data, std::size_t padding) {
  return seal_headroom(f) + data + seal_tailroom(padding);
}
/// The largest record on the wire (header included).
constexpr std::size_t max_record_size(Framing f) { return header_size(f) + kMaxRecordPayload; }

enum class SealError : std::uint8_t {
  kTooLarge,          ///< data + padding > kMaxTunnelMtu (16638)
  kBufferTooSmall,    ///< the buffer cannot hold record_size(...)
  kCounterExhausted,  ///< the send counter reached kSealCounterLimit: rekey/reconnect
  kCrypto,            ///< the AEAD library failed (a bug or a broken library)
};

enum class OpenError : std::uint8_t {
  kTruncated,       ///< fewer bytes than a header
  kBadHeader,       ///< Tls framing: not `17 03 03`
  kLengthMismatch,  ///< header length ≠ the bytes given (trailing or missing bytes)
  kTooSmall,        ///< payload < 38 (cannot hold nonce, counter, padlen, tag)
  kTooLarge,        ///< payload > 16676
  kAuthFailed,      ///< AEAD tag did not verify (wrong key, tampering)
  kBadPadding,      ///< padding_len larger than the plaintext allows
  kReplay,          ///< counter already seen or older than the window
};

const char* to_string(SealError e);
const char* to_string(OpenError e);

/// A record opened in place: `data` points INTO the record buffer given to open (valid
/// as long as that buffer is), `counter` is the authenticated record counter.
struct OpenedRecord {
  MutableByteSpan data;
  std::uint64_t counter;
};

class PacketCodec {
 public:
  /// `key` is the 32-byte ChaCha20-Poly1305 key of this direction; `seed` the 4-byte
  /// nonce seed (only used when sealing).
  PacketCodec(Framing framing, std::span<const std::uint8_t, 32> key,
              std::span<const std::uint8_t, 4> seed);
  /// As above with a fresh random seed from `rng`.
  PacketCodec(Framing framing, const crypto::Key32& key, crypto::Rng& rng);
  PacketCodec(PacketCodec&&) noexcept = default;
  PacketCodec& operator=(PacketCodec&&) noexcept = default;
  PacketCodec(const PacketCodec&) = delete;
  PacketCodec& operator=(const PacketCodec&) = delete;
  ~PacketCodec();

  Framing framing() const { return framing_; }

  /// Seals in place. `buf` starts where the record will start; the caller has already
  /// written `data_len` data bytes at `buf[seal_headroom(framing())]`. Writes header,
  /// nonce, counter, `padding_len` zero bytes of padding (they are encrypted, so their
  /// value does not matter), the padding length and the tag.
  /// Returns the record size (= record_size(framing, data_len, padding_len)); on error
  /// nothing observable changed except possibly bytes of `buf` (the counter did not
  /// advance). `buf` stays owned by the caller in every outcome.
  Result<std::size_t, SealError> seal_in_place(MutableByteSpan buf, std::size_t data_len,
                                               std::size_t padding_len);

  /// Copies `data` to `out[seal_headroom()]` and seals there. `data` must not overlap
  /// `out` (use seal_in_place when it already sits at the right offset).
  Result<std::size_t, SealError> seal(ByteSpan data, std::size_t padding_len, MutableByteSpan out);

  /// Opens exactly one record (`record` = header ‖ payload, nothing more) in place.
  /// On success the returned data span points into `record`; on any error the bytes of
  /// `record` are garbage and must be dropped. The replay window is updated only for
  /// records that authenticated and parsed.
  Result<OpenedRecord, OpenError> open_in_place(MutableByteSpan record);

  /// Sender: records from now on without the inner AEAD (see above). Only after the
  /// peer's TLS binding proof verified.
  void set_send_tls_bound(bool on) { send_tls_bound_ = on; }
  bool send_tls_bound() const { return send_tls_bound_; }
  /// Receiver: take records with an all-zero nonce as TLS-bound ones (see above).
  void set_accept_tls_bound(bool on) { accept_tls_bound_ = on; }

  /// Sender: records from now on with AES-256-GCM (the peer negotiated caps::kAesGcm).
  void set_send_aes() { aead_.switch_send_to_aes(); }
  RecordAeadKind send_aead() const { return aead_.send_kind(); }
  /// Receiver: take AES-256-GCM records too, with a stream's or datagrams' switch rules.
  void set_accept_aes(bool stream) { aead_.accept_aes(stream); }
  bool recv_accepts_aes() const { return aead_.accepts_aes(); }
  /// Receiver: the peer's capabilities lack caps::kAesGcm: ChaCha only (before any AES).
  void set_refuse_aes() { aead_.refuse_aes(); }
  /// Receiver: an AES record authenticated (the peer switched).
  bool recv_aes_seen() const { return aead_.aes_seen(); }
  /// Receiver: only AES records are taken now.
  bool recv_aes_only() const { return aead_.aes_only(); }

  /// Sender: nonces from now on carry roaming connection ids (caps::kRoam negotiated;
  /// wire/roam_nonce.h). Null: back to the 0.7.16 nonces.
  void set_send_roam(std::unique_ptr<RoamNonces> roam) { roam_ = std::move(roam); }

  /// Receiver: the highest record counter accepted so far (0 before the first).
  std::uint64_t recv_top() const { return replay_.top(); }

  /// The counter the next sealed record will carry (starts at 0).
  std::uint64_t send_counter() const { return send_counter_; }

 private:
  Framing framing_;
  RecordAead aead_;
  std::unique_ptr<crypto::NoncePrp> prp_;  // heap only so the codec is movable
  std::array<std::uint8_t, 4> seed_{};
  std::unique_ptr<RoamNonces> roam_;
  std::uint64_t send_counter_ = 0;
  crypto::ReplayWindow replay_;
  bool send_tls_bound_ = false;
  bool accept_tls_bound_ = false;

 public:
  /// Test hook: starts the send counter at `c` (to test counter exhaustion).
  void set_send_counter_for_test(std::uint64_t c) { send_counter_ = c; }
};

}  // namespace qeli::wire
