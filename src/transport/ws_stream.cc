#include "transport/ws_stream.h"

#include <algorithm>
#include <cstring>

namespace qeli::transport {
namespace {

// The receive buffer: room for a few full frames per read() from the socket.
constexpr std::size_t kRxBytes = 4 * (wire::kWsMaxPayload + wire::kWsMaxHeader);

}  // namespace

WebSocketStream::WebSocketStream(std::unique_ptr<Stream> lower, bool client, crypto::Rng& rng,
                                 Bytes payload, Bytes raw)
    : StreamLayer(std::move(lower)),
      client_(client),
      rng_(rng),
      overhead_(lower_->overhead().with_layer(
          client ? wire::kWsMaskedDataHeader : wire::kWsDataHeader, 0, wire::kWsMaxPayload)),
      payload_(std::move(payload)),
      rx_(std::max(kRxBytes, raw.size())) {
  out_.reserve(64);
  owed_.reserve(kMaxOwed);
  std::copy(raw.begin(), raw.end(), rx_.begin());
  rx_end_ = raw.size();
}

WebSocketStream::~WebSocketStream() {
  // A Close echo (or Pong) still owed: one best-effort non-blocking write, so a peer that
  // closed the WebSocket hears the answer RFC 6455 §5.5.1 requires.
  if (!have_owed_.load() || lower_->write_pending()) return;
  const std::size_t n = take_owed();
  if (n == 0) return;
  MutableByteSpan c(ctrl_.data(), n);
  (void)lower_->write({&c, 1});
}

wire::WsMask WebSocketStream::next_mask() {
  if (masks_used_ + 4 > masks_.size()) {
    rng_.fill(masks_);
    masks_used_ = 0;
  }
  wire::WsMask m;
  std::memcpy(m.data(), masks_.data() + masks_used_, 4);
  masks_used_ += 4;
  return m;
}

void WebSocketStream::owe(wire::WsOpcode op, ByteSpan body) {
  std::lock_guard lock(owed_mu_);
  if (owed_.size() >= kMaxOwed) return;  // a Ping flood is not answered past the cap
  if (op == wire::WsOpcode::kClose) {
    if (close_owed_) return;
    close_owed_ = true;
  }
  Owed o{op, static_cast<std::uint8_t>(body.size()), {}};
  std::copy(body.begin(), body.end(), o.body.begin());
  owed_.push_back(o);
  have_owed_.store(true);
}

std::size_t WebSocketStream::take_owed() {
  std::lock_guard lock(owed_mu_);
  std::size_t n = 0;
  for (const Owed& o : owed_) {
    const wire::WsMask mask = client_ ? next_mask() : wire::WsMask{};
    n += wire::write_ws_header(ctrl_.data() + n, o.op, o.len, client_ ? &mask : nullptr);
    std::memcpy(ctrl_.data() + n, o.body.data(), o.len);
    if (client_) wire::ws_apply_mask(MutableByteSpan(ctrl_.data() + n, o.len), mask);
    n += o.len;
  }
  replies_sent_.fetch_add(owed_.size());
  owed_.clear();
  have_owed_.store(false);
  return n;
}

StreamStatus WebSocketStream::write(std::span<MutableByteSpan> chunks) {
  if (lower_->write_pending()) return StreamStatus::kError;  // caller bug: resume() first
  out_.clear();
  if (have_owed_.load(std::memory_order_relaxed)) {
    if (const std::size_t n = take_owed(); n > 0) out_.emplace_back(ctrl_.data(), n);
  }
  for (MutableByteSpan& c : chunks) {
    if (c.size() > wire::kWsMaxPayload) return StreamStatus::kError;  // caller bug
    if (client_) {
      const wire::WsMask mask = next_mask();
      const std::size_t h = wire::ws_header_size(c.size(), true);
      wire::write_ws_header(c.data() - h, wire::WsOpcode::kBinary, c.size(), &mask);
      wire::ws_apply_mask(c, mask);
      c = MutableByteSpan(c.data() - h, h + c.size());
    } else {
      const std::size_t h = wire::ws_header_size(c.size(), false);
      wire::write_ws_header(c.data() - h, wire::WsOpcode::kBinary, c.size(), nullptr);
      c = MutableByteSpan(c.data() - h, h + c.size());
    }
    out_.push_back(c);
  }
  return lower_->write(out_);
}

ReadResult WebSocketStream::fail_read(std::string why) {
  read_failure_ = std::move(why);
  return {StreamStatus::kError};
}

ReadResult WebSocketStream::read(MutableByteSpan out) {
  if (!read_failure_.empty()) return {StreamStatus::kError};
  std::size_t got = 0;
  if (payload_at_ < payload_.size()) {
    got = std::min(out.size(), payload_.size() - payload_at_);
    std::memcpy(out.data(), payload_.data() + payload_at_, got);
    payload_at_ += got;
    if (payload_at_ == payload_.size()) {
      Bytes().swap(payload_);
      payload_at_ = 0;
    }
  }
  while (got < out.size()) {
    if (closed_)
      return got > 0 ? ReadResult{StreamStatus::kOk, got} : ReadResult{StreamStatus::kClosed};
    const std::size_t avail = rx_end_ - rx_begin_;
    if (frame_left_ > 0 && avail > 0) {
      const std::size_t n = static_cast<std::size_t>(
          std::min<std::uint64_t>(frame_left_, std::min(avail, out.size() - got)));
      if (frame_deliver_) {
        if (frame_masked_) {
          wire::ws_copy_masked(out.data() + got, rx_.data() + rx_begin_, n, frame_mask_,
                               frame_off_);
        } else {
          std::memcpy(out.data() + got, rx_.data() + rx_begin_, n);
        }
        got += n;
      }
      rx_begin_ += n;
      frame_left_ -= n;
      frame_off_ += n;
      continue;
    }
    if (frame_left_ == 0 && avail > 0) {
      const ByteSpan buf(rx_.data() + rx_begin_, avail);
      auto h = wire::parse_ws_header(buf, /*from_client=*/!client_);
      if (!h) return fail_read(wire::to_string(h.error()));
      if (h->has_value()) {
        const wire::WsFrameHeader& fh = **h;
        const bool control = static_cast<std::uint8_t>(fh.opcode) >= 0x8;
        if (!control) {
          rx_begin_ += fh.header_size;
          frame_left_ = fh.length;
          frame_off_ = 0;
          frame_mask_ = fh.mask;
          frame_masked_ = fh.masked;
          frame_deliver_ = fh.opcode != wire::WsOpcode::kText;
          continue;
        }
        if (avail >= fh.header_size + fh.length) {  // control frames are handled whole
          std::array<std::uint8_t, wire::kWsMaxControlPayload> body{};
          const auto len = static_cast<std::size_t>(fh.length);
          std::memcpy(body.data(), buf.data() + fh.header_size, len);
          if (fh.masked) wire::ws_apply_mask(MutableByteSpan(body.data(), len), fh.mask);
          rx_begin_ += fh.header_size + len;
          if (fh.opcode == wire::WsOpcode::kPing) {
            owe(wire::WsOpcode::kPong, ByteSpan(body.data(), len));
          } else if (fh.opcode == wire::WsOpcode::kClose) {
            owe(wire::WsOpcode::kClose, ByteSpan(body.data(), std::min<std::size_t>(len, 2)));
            closed_ = true;
          }
          continue;
        }
      }
    }
    // Need more raw bytes: deliver what we have first (the caller reads again before
    // it polls), else one read from below into the free end of the buffer.
    if (got > 0) break;
    if (rx_begin_ == rx_end_) {
      rx_begin_ = rx_end_ = 0;
    } else if (rx_begin_ > 0 &&
               rx_.size() - rx_end_ < wire::kWsMaxHeader + wire::kWsMaxControlPayload) {
      std::memmove(rx_.data(), rx_.data() + rx_begin_, rx_end_ - rx_begin_);
      rx_end_ -= rx_begin_;
      rx_begin_ = 0;
    }
    const ReadResult r = lower_->read(MutableByteSpan(rx_.data() + rx_end_, rx_.size() - rx_end_));
    if (r.status != StreamStatus::kOk) return r;
    rx_end_ += r.bytes;
  }
  return {StreamStatus::kOk, got};
}

std::string WebSocketStream::failure() const {
  if (!read_failure_.empty()) return read_failure_;
  if (closed_) return "the peer closed the WebSocket (Close frame)";
  return lower_->failure();
}

}  // namespace qeli::transport
