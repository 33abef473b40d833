#include "transport/tls_stream.h"

#include <algorithm>
#include <cstring>

namespace qeli::transport {

TlsStream::TlsStream(std::unique_ptr<Stream> lower, std::unique_ptr<tls::RecordSender> sender,
                     std::unique_ptr<tls::RecordReceiver> receiver)
    : StreamLayer(std::move(lower)),
      sender_(std::move(sender)),
      receiver_(std::move(receiver)),
      overhead_(lower_->overhead().with_layer(kTlsRecordHead, kTlsRecordTail, kTlsMaxChunk)),
      key_update_(tls::kKeyUpdateRecordSize) {
  out_.reserve(64);
}

StreamStatus TlsStream::write(std::span<MutableByteSpan> chunks) {
  if (lower_->write_pending()) return StreamStatus::kError;  // caller bug: resume() first
  out_.clear();
  if (sender_->key_update_due()) {
    auto n = sender_->seal_key_update(key_update_);
    if (!n) {
      write_failure_ = tls::to_string(n.error());
      return StreamStatus::kError;
    }
    out_.emplace_back(key_update_.data(), *n);
  }
  for (MutableByteSpan& c : chunks) {
    if (c.size() > kTlsMaxChunk) return StreamStatus::kError;  // caller bug
    MutableByteSpan rec(c.data() - kTlsRecordHead, kTlsRecordHead + c.size() + kTlsRecordTail);
    auto n = sender_->seal(rec, c.size());
    if (!n) {
      write_failure_ = tls::to_string(n.error());
      return StreamStatus::kError;
    }
    c = rec.first(*n);
    out_.push_back(c);
  }
  return lower_->write(out_);
}

ReadResult TlsStream::read(MutableByteSpan out) {
  std::size_t got = 0;
  while (got < out.size()) {
    if (!pending_.empty()) {
      const std::size_t n = std::min(pending_.size(), out.size() - got);
      std::memcpy(out.data() + got, pending_.data(), n);
      pending_ = pending_.subspan(n);
      got += n;
      continue;
    }
    auto in = receiver_->next();
    if (!in) {
      read_failure_ = tls::to_string(in.error());
      if (in.error() == tls::TlsError::kPeerAlert && receiver_->peer_alert()) {
        read_failure_ += std::string(": ") + tls::to_string(*receiver_->peer_alert());
      }
      return got > 0 ? ReadResult{StreamStatus::kOk, got} : ReadResult{StreamStatus::kError};
    }
    if (in->kind == tls::InboundKind::kData) {
      pending_ = in->data;
      continue;
    }
    if (in->kind == tls::InboundKind::kClosed) {
      return got > 0 ? ReadResult{StreamStatus::kOk, got} : ReadResult{StreamStatus::kClosed};
    }
    // Need a record: one read from below, straight into the record buffer.
    if (got > 0) break;  // deliver what we have; the caller reads again before polling
    MutableByteSpan space = receiver_->buffer().write_space();
    if (space.empty()) {
      read_failure_ = "TLS receive buffer full";
      return {StreamStatus::kError};
    }
    const ReadResult r = lower_->read(space);
    if (r.status != StreamStatus::kOk) return r;
    receiver_->buffer().commit(r.bytes);
  }
  return {StreamStatus::kOk, got};
}

StreamStatus TlsStream::close_notify() {
  if (lower_->write_pending()) return StreamStatus::kError;
  auto rec = sender_->close_notify();
  if (!rec) return StreamStatus::kError;
  close_ = std::move(*rec);
  MutableByteSpan span(close_.data(), close_.size());
  return lower_->write({&span, 1});
}

std::string TlsStream::failure() const {
  if (!write_failure_.empty()) return write_failure_;
  return read_failure_;
}

}  // namespace qeli::transport
