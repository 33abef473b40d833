// TlsStream: the TLS 1.3 record layer of reality-tls as a transport::Stream layer
// (transport/stream.h) over the stream below, after the handshake (transport/tls_setup.h).
//
//   write: each chunk (≤ 16384 bytes: one TLS record's worth) is sealed in place into one
//          application_data record — header in the 5 bytes before it, content type and tag
//          in the 17 after (Overhead{5, 17, 16384} on top of the stack below). A KeyUpdate
//          the sender owes (the peer asked; or, between two of ours, the key nears its
//          RFC 8446 §5.5 limit) goes out first, in the layer's own small buffer.
//   read:  deframes and opens records (tls::RecordReceiver): application data is copied
//          to `out`; KeyUpdate, tickets, close_notify and alerts are handled inside.
//
// One writer and one reader thread may use it at once: the sender and the receiver are
// separate objects sharing only the KeyUpdate flag. Errors end the stream (kError), with
// the reason in failure() for the log; close_notify from the peer reads as kClosed.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tls/record_channel.h"
#include "transport/stream.h"

namespace qeli::transport {

inline constexpr std::size_t kTlsRecordHead = tls::kRecordHead;  // 5
inline constexpr std::size_t kTlsRecordTail = tls::kRecordTail;  // 17
inline constexpr std::size_t kTlsMaxChunk = tls::kMaxPlaintext;  // 16384

class TlsStream final : public StreamLayer {
 public:
  /// Over `lower` (owned). `leftover`: bytes of this layer the set-up already read.
  TlsStream(std::unique_ptr<Stream> lower, std::unique_ptr<tls::RecordSender> sender,
            std::unique_ptr<tls::RecordReceiver> receiver);

  Overhead overhead() const override { return overhead_; }
  StreamStatus write(std::span<MutableByteSpan> chunks) override;
  ReadResult read(MutableByteSpan out) override;

  /// KeyUpdates may be sent on our own before the key limit (the peer is ours: a 0.7.16
  /// peer does not handle them). Writer thread.
  void set_peer_is_ours(bool ours) { sender_->set_peer_is_ours(ours); }
  /// The next write() starts with a KeyUpdate (asking the peer to update too when
  /// `ask_peer`). Writer thread; for a peer of ours only.
  void request_key_update(bool ask_peer) { sender_->force_key_update(ask_peer); }
  /// Sends close_notify (writer thread; no write may be pending). kWouldBlock: finish it
  /// with resume() like any write.
  StreamStatus close_notify();

  /// Why the stream failed (reader or writer side), for the log.
  std::string failure() const override;
  const tls::RecordSender& sender() const { return *sender_; }
  const tls::RecordReceiver& receiver() const { return *receiver_; }

 private:
  std::unique_ptr<tls::RecordSender> sender_;
  std::unique_ptr<tls::RecordReceiver> receiver_;
  Overhead overhead_;
  std::vector<MutableByteSpan> out_;  // chunks passed down (a KeyUpdate first, if due)
  Bytes key_update_;                  // the KeyUpdate record, kept until it is sent
  Bytes close_;                       // the close_notify record, likewise
  MutableByteSpan pending_;           // opened application data not yet read
  std::string write_failure_;
  std::string read_failure_;
};

}  // namespace qeli::transport
