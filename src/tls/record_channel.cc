#include "tls/record_channel.h"

#include "tls/handshake_messages.h"
#include "tls/key_schedule.h"

namespace qeli::tls {
namespace {
// Update this many records before the limit, so the update always fits.
constexpr std::uint64_t kUpdateMargin = 1 << 16;
constexpr std::size_t kMaxControlRecordsKept = 16;
}  // namespace

RecordSender::RecordSender(CipherSuite suite, Secret traffic_secret,
                           std::shared_ptr<KeyUpdateSignal> signal, bool peer_is_ours)
    : suite_(suite),
      secret_(std::move(traffic_secret)),
      prot_(suite, secret_),
      signal_(std::move(signal)),
      peer_is_ours_(peer_is_ours) {}

bool RecordSender::key_update_due() const {
  if (forced_) return true;
  if (signal_ && signal_->peer_requested.load(std::memory_order_acquire)) return true;
  return peer_is_ours_ && prot_.remaining() <= kUpdateMargin;
}

Result<std::size_t, TlsError> RecordSender::seal_key_update(MutableByteSpan record) {
  // Asking the peer back only when we started it (answering a request must not ask
  // again, or two updaters would ping-pong: §4.6.3).
  const bool ask = forced_ && ask_peer_;
  forced_ = false;
  return seal_key_update(record,
                         ask ? KeyUpdateRequest::kRequested : KeyUpdateRequest::kNotRequested);
}

Result<std::size_t, TlsError> RecordSender::seal_key_update(MutableByteSpan record,
                                                            KeyUpdateRequest request) {
  if (record.size() < kKeyUpdateRecordSize) return fail(TlsError::kInternal);
  const Bytes msg = key_update_message(request);
  std::copy(msg.begin(), msg.end(), record.begin() + kRecordHeaderSize);
  auto n = prot_.seal(record, msg.size(), ContentType::kHandshake);
  if (!n) return n;
  // §4.6.3: the sender switches to the next key right after sending KeyUpdate.
  secret_ = next_traffic_secret(suite_, secret_);
  prot_.rekey(secret_);
  if (signal_) signal_->peer_requested.store(false, std::memory_order_release);
  ++updates_;
  ++total_;
  return n;
}

Result<std::size_t, TlsError> RecordSender::seal(MutableByteSpan record, std::size_t content_len,
                                                 ContentType type, std::size_t padding) {
  if (!peer_is_ours_ && prot_.exhausted()) return fail(TlsError::kKeyLimit);
  auto n = prot_.seal(record, content_len, type, padding);
  if (n) ++total_;
  return n;
}

std::optional<Bytes> RecordSender::close_notify() {
  Bytes rec(kRecordHeaderSize + 2 + seal_tail(0));
  rec[kRecordHeaderSize] = static_cast<std::uint8_t>(AlertLevel::kWarning);
  rec[kRecordHeaderSize + 1] = static_cast<std::uint8_t>(AlertDescription::kCloseNotify);
  auto n = prot_.seal(rec, 2, ContentType::kAlert);
  if (!n) return std::nullopt;
  rec.resize(*n);
  return rec;
}

RecordReceiver::RecordReceiver(CipherSuite suite, Secret traffic_secret,
                               std::shared_ptr<KeyUpdateSignal> signal)
    : suite_(suite),
      secret_(std::move(traffic_secret)),
      prot_(suite, secret_),
      signal_(std::move(signal)) {}

Result<bool, TlsError> RecordReceiver::on_handshake(ByteSpan content, std::size_t wire_size) {
  if (auto s = hs_.add(content); !s) return fail(s.error());
  ControlRecord rec{wire_size, ContentType::kHandshake, {}, {}};
  bool rekeyed = false;
  for (;;) {
    auto m = hs_.next();
    if (!m) return fail(m.error());
    if (!m->has_value()) break;
    const HandshakeMessage& msg = **m;
    rec.messages.push_back(msg.type);
    if (msg.type == HandshakeType::kNewSessionTicket) {
      auto t = parse_new_session_ticket(msg.body);
      if (!t) return fail(t.error());
      ++tickets_;
      if (control_.size() < kMaxControlRecordsKept)
        rec.ticket_bodies.emplace_back(msg.body.begin(), msg.body.end());
    } else if (msg.type == HandshakeType::kKeyUpdate) {
      auto req = parse_key_update(msg.body);
      if (!req) return fail(req.error());
      // §5.1: KeyUpdate must end its record (the key changes after it).
      if (!hs_.at_boundary()) return fail(TlsError::kUnexpectedMessage);
      secret_ = next_traffic_secret(suite_, secret_);
      prot_.rekey(secret_);
      ++updates_;
      rekeyed = true;
      if (*req == KeyUpdateRequest::kRequested && signal_) {
        signal_->peer_requested.store(true, std::memory_order_release);
      }
    } else {
      return fail(TlsError::kUnexpectedMessage);
    }
  }
  if (rekeyed && !hs_.at_boundary()) return fail(TlsError::kUnexpectedMessage);
  if (control_.size() < kMaxControlRecordsKept) control_.push_back(std::move(rec));
  return true;
}

Result<Inbound, TlsError> RecordReceiver::next() {
  if (closed_) return Inbound{InboundKind::kClosed, {}};
  for (;;) {
    auto r = buf_.next();
    if (!r) return fail(r.error());
    if (!r->has_value()) return Inbound{InboundKind::kNeedMore, {}};
    const RecordView v = **r;
    if (v.type != ContentType::kApplicationData) {
      // After the handshake every record is protected; a CCS is no longer allowed (§5).
      return fail(TlsError::kUnexpectedMessage);
    }
    const std::size_t wire = v.record.size();
    last_size_ = wire;
    auto o = prot_.open(v.record);
    if (!o) return fail(o.error());
    switch (o->type) {
      case ContentType::kApplicationData:
        if (o->content.empty()) {
          if (++empty_run_ > kMaxEmptyRecords) return fail(TlsError::kTooManyEmptyRecords);
          if (empty_sizes_.size() < 8) empty_sizes_.push_back(wire);
          continue;
        }
        if (!hs_.at_boundary()) return fail(TlsError::kUnexpectedMessage);  // §5.1 interleave
        empty_run_ = 0;
        return Inbound{InboundKind::kData, o->content};
      case ContentType::kHandshake: {
        empty_run_ = 0;
        auto h = on_handshake(o->content, wire);
        if (!h) return fail(h.error());
        continue;
      }
      case ContentType::kAlert: {
        auto a = parse_alert(o->content);
        if (!a) return fail(a.error());
        if (a->description == AlertDescription::kCloseNotify) {
          closed_ = true;
          return Inbound{InboundKind::kClosed, {}};
        }
        if (a->description == AlertDescription::kUserCanceled) continue;  // then close_notify
        peer_alert_ = a->description;
        return fail(TlsError::kPeerAlert);
      }
      default: return fail(TlsError::kUnexpectedMessage);
    }
  }
}

}  // namespace qeli::tls
