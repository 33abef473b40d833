// Record protection (RFC 8446 §5.2–§5.5) for one direction of one connection: the AEAD,
// the static IV, the 64-bit sequence number and the per-key record limit. In place on
// caller-owned buffers, no allocation per record.
//
// A protected record on the wire:
//   23 03 03 len(2) | AEAD( content ‖ type(1) ‖ zeros(padding) ) ‖ tag(16)
// nonce = iv XOR (0^4 ‖ seq BE64), additional data = the 5-byte header.
//
// Not thread-safe: one object per direction, used by one thread.
#pragma once

#include <array>
#include <cstdint>

#include "base/bytes.h"
#include "base/result.h"
#include "crypto/aead.h"
#include "tls/alert.h"
#include "tls/cipher_suite.h"
#include "tls/constants.h"
#include "tls/key_schedule.h"
#include "tls/secret.h"

namespace qeli::tls {

/// Bytes seal() needs around `content_len` content bytes: the header before, the type,
/// padding and tag after.
inline constexpr std::size_t kSealHead = kRecordHeaderSize;
constexpr std::size_t seal_tail(std::size_t padding) { return 1 + padding + kAeadTagSize; }

struct OpenedRecord {
  ContentType type;
  MutableByteSpan content;  ///< inside the record buffer, padding removed
};

class RecordProtection {
 public:
  /// Keys from `traffic_secret` (§7.3), sequence 0.
  RecordProtection(CipherSuite suite, const Secret& traffic_secret);

  CipherSuite suite() const { return suite_; }
  std::uint64_t sequence() const { return seq_; }
  /// True once the key has protected record_limit_of(suite) records: seal() then refuses
  /// and the owner must update the key (KeyUpdate) or end the connection.
  bool exhausted() const { return seq_ >= limit_; }
  /// Records left before exhausted().
  std::uint64_t remaining() const { return exhausted() ? 0 : limit_ - seq_; }

  /// Seals one record in place. `record` starts where the header goes; the content is
  /// record[5, 5+content_len); record.size() must be ≥ 5 + content_len + seal_tail(padding)
  /// and content_len + 1 + padding ≤ 2^14 + 1 (else kRecordOverflow, a caller bug).
  /// Returns the record's total length. kKeyLimit when exhausted().
  Result<std::size_t, TlsError> seal(MutableByteSpan record, std::size_t content_len,
                                     ContentType type, std::size_t padding = 0);

  /// Opens one whole record (header included) in place. Checks the §5.2/§5.4 rules:
  /// ciphertext ≤ 2^14+256, inner plaintext ≤ 2^14+1, a non-zero inner type that is
  /// handshake/alert/application data, no empty handshake or alert record.
  Result<OpenedRecord, TlsError> open(MutableByteSpan record);

  /// Switches to the next traffic secret (KeyUpdate, §4.6.3): new key and IV, sequence 0.
  void rekey(const Secret& traffic_secret);

 private:
  std::array<std::uint8_t, kAeadNonceSize> nonce() const;

  CipherSuite suite_;
  std::array<std::uint8_t, kAeadNonceSize> iv_{};  // before aead_: make_aead() fills it
  crypto::Aead aead_;
  std::uint64_t seq_ = 0;
  std::uint64_t limit_;
};

/// Appends the fatal alert we owe for `e` (§6, alert_for) to `out`: sealed as the first
/// record under `handshake_key` (our own handshake traffic secret) once the peer reads
/// protected records, as a plaintext record when `handshake_key` is null. Nothing for
/// failures that send no alert (kPeerAlert, kPeerClosed, kTimeout).
void append_fatal_alert(Bytes& out, TlsError e, CipherSuite suite, const Secret* handshake_key);

}  // namespace qeli::tls
