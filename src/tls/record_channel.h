// The two directions of an established TLS 1.3 connection (after both Finished), for the
// client and the terminator alike:
//
//  * RecordSender seals application data in place (tls/record_protection.h) and owns the
//    KeyUpdate duties of its side (RFC 8446 §4.6.3): answering a peer's update_requested
//    with a KeyUpdate before more data, and updating on its own before the key's record
//    limit (§5.5) when `peer_is_ours`; otherwise it refuses at the limit (kKeyLimit) and
//    the owner reconnects.
//  * RecordReceiver deframes and opens records in place and handles what is not data:
//    KeyUpdate (rekeys at once; §5.1 boundary enforced), NewSessionTicket (parsed and
//    skipped: we never resume), close_notify, fatal alerts, runs of empty records.
//
// One thread per object (a sender thread and a receiver thread may run at once); the
// only state they share is the KeyUpdateSignal, an atomic flag.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "base/bytes.h"
#include "base/result.h"
#include "tls/alert.h"
#include "tls/cipher_suite.h"
#include "tls/constants.h"
#include "tls/handshake_reader.h"
#include "tls/record_buffer.h"
#include "tls/record_protection.h"
#include "tls/secret.h"

namespace qeli::tls {

/// Set by the receiver when the peer asked for an update; cleared by the sender once its
/// KeyUpdate is out.
struct KeyUpdateSignal {
  std::atomic<bool> peer_requested{false};
};

/// Room a caller reserves around each record's content (the header before; type, padding
/// and tag after).
inline constexpr std::size_t kRecordHead = kSealHead;
inline constexpr std::size_t kRecordTail = seal_tail(0);
/// The KeyUpdate record is a fixed 5 + 5 + 1 + 16 bytes.
inline constexpr std::size_t kKeyUpdateRecordSize = kRecordHeaderSize + 5 + 1 + kAeadTagSize;

class RecordSender {
 public:
  /// Starts with `traffic_secret` (application_traffic_secret_0 of this side).
  RecordSender(CipherSuite suite, Secret traffic_secret, std::shared_ptr<KeyUpdateSignal> signal,
               bool peer_is_ours);

  CipherSuite suite() const { return suite_; }
  /// Whether we may update on our own before the key limit (only a peer of ours
  /// handles KeyUpdate that it did not ask for; a 0.7.16 peer does not handle any).
  void set_peer_is_ours(bool ours) { peer_is_ours_ = ours; }

  /// Makes the next seal_key_update(record) go out even if not due, asking the peer to
  /// update too when `ask_peer` (an owner's periodic rekey between two of ours).
  void force_key_update(bool ask_peer) {
    forced_ = true;
    ask_peer_ = ask_peer;
  }

  /// True when a KeyUpdate must go out before the next data record: the peer asked for
  /// one, we forced one, or (peer_is_ours) the key is within 2^16 records of its limit.
  bool key_update_due() const;
  /// Seals the due KeyUpdate into `record` (≥ kKeyUpdateRecordSize bytes) under the
  /// current key, then switches to the next key. Returns the record size.
  Result<std::size_t, TlsError> seal_key_update(MutableByteSpan record);
  /// Seals a KeyUpdate(`request`) regardless of due-ness (tests; an owner forcing one).
  Result<std::size_t, TlsError> seal_key_update(MutableByteSpan record, KeyUpdateRequest request);

  /// Seals one record of `content_len` content bytes at record[5...] (see
  /// RecordProtection::seal). kKeyLimit if the key is exhausted (an update was due and
  /// not sent, or the peer is not ours).
  Result<std::size_t, TlsError> seal(MutableByteSpan record, std::size_t content_len,
                                     ContentType type = ContentType::kApplicationData,
                                     std::size_t padding = 0);

  /// A close_notify alert record (§6.1), sealed; nullopt if the key is exhausted.
  std::optional<Bytes> close_notify();

  std::uint64_t records_sent() const { return total_; }
  std::uint64_t key_updates_sent() const { return updates_; }

 private:
  CipherSuite suite_;
  Secret secret_;
  RecordProtection prot_;
  std::shared_ptr<KeyUpdateSignal> signal_;
  bool peer_is_ours_;
  bool forced_ = false;
  bool ask_peer_ = false;
  std::uint64_t total_ = 0;
  std::uint64_t updates_ = 0;
};

/// A non-data record the receiver handled (kept for the target prober: it measures the
/// target's NewSessionTicket records).
struct ControlRecord {
  std::size_t wire_size;  ///< header included
  ContentType inner;
  std::vector<HandshakeType> messages;  ///< for handshake records
  std::vector<Bytes> ticket_bodies;     ///< NewSessionTicket bodies in this record
};

enum class InboundKind : std::uint8_t {
  kNeedMore,  ///< no complete record: feed more bytes
  kData,      ///< `data` is application data (valid until the next call)
  kClosed,    ///< close_notify received; nothing more will come
};

struct Inbound {
  InboundKind kind;
  MutableByteSpan data;
};

class RecordReceiver {
 public:
  RecordReceiver(CipherSuite suite, Secret traffic_secret, std::shared_ptr<KeyUpdateSignal> signal);

  /// Where to put received bytes (RecordBuffer::write_space/commit/append).
  RecordBuffer& buffer() { return buf_; }

  /// Processes buffered records until application data, close_notify, or a need for more
  /// bytes. Any protocol violation fails the connection (the error names why).
  Result<Inbound, TlsError> next();

  /// The description of the fatal alert the peer sent (after kPeerAlert).
  std::optional<AlertDescription> peer_alert() const { return peer_alert_; }
  /// Wire size (header included) of the last record next() opened.
  std::size_t last_record_size() const { return last_size_; }
  /// Wire sizes of the first 8 padding-only application-data records (skipped as data):
  /// the prober's view of a terminator's stand-ins for a target's unprompted records.
  const std::vector<std::size_t>& empty_record_sizes() const { return empty_sizes_; }
  std::uint64_t key_updates_received() const { return updates_; }
  std::uint64_t tickets_received() const { return tickets_; }
  /// The first 16 non-data records (for the prober); later ones are counted only.
  const std::vector<ControlRecord>& control_records() const { return control_; }

 private:
  Result<bool, TlsError> on_handshake(ByteSpan content, std::size_t wire_size);

  CipherSuite suite_;
  Secret secret_;
  RecordProtection prot_;
  std::shared_ptr<KeyUpdateSignal> signal_;
  RecordBuffer buf_;
  HandshakeReader hs_;
  std::size_t empty_run_ = 0;
  std::size_t last_size_ = 0;
  std::vector<std::size_t> empty_sizes_;  // first 8 (see empty_record_sizes)
  std::uint64_t updates_ = 0;
  std::uint64_t tickets_ = 0;
  std::optional<AlertDescription> peer_alert_;
  std::vector<ControlRecord> control_;
  bool closed_ = false;
};

}  // namespace qeli::tls
