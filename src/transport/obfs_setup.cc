#include "transport/obfs_setup.h"

#include <algorithm>

#include "transport/ws_stream.h"
#include "wire/nginx_decoy.h"

namespace qeli::transport {
namespace {

constexpr std::size_t kFrameBytes = wire::kWsMaxPayload + wire::kWsMaxHeader;
// The largest request body the decoy reads past to answer the next request.
constexpr std::uint64_t kDecoyMaxBody = 64 * 1024;

}  // namespace

const char* to_string(ObfsFailure f) {
  switch (f) {
    case ObfsFailure::kNone: return "none";
    case ObfsFailure::kTimeout: return "obfs set-up timed out";
    case ObfsFailure::kPeerClosed: return "connection closed during the obfs set-up";
    case ObfsFailure::kHeadTooLarge: return "HTTP head without CRLFCRLF within 4096 bytes";
    case ObfsFailure::kNotUpgrade: return "not a WebSocket upgrade to our path (answered as nginx)";
    case ObfsFailure::kBadResponse: return "the server did not switch to WebSocket";
    case ObfsFailure::kJunkTooLong: return "junk record longer than 1400 bytes";
    case ObfsFailure::kBadFrame: return "malformed WebSocket frame";
    case ObfsFailure::kBudget: return "too many bytes before the obfs nonce";
    case ObfsFailure::kWebSocketClose: return "WebSocket Close during the obfs set-up";
  }
  return "?";
}

ObfsSetup::ObfsSetup(Side side, ObfsParams params, crypto::Rng& rng)
    : side_(side), p_(std::move(params)), rng_(rng) {
  rng_.fill(own_);
}

void ObfsSetup::fail(ObfsFailure kind, std::string detail) {
  if (state_ != SetupState::kRunning) return;
  state_ = SetupState::kFailed;
  failure_kind_ = kind;
  failure_detail_ = std::string(to_string(kind)) + (detail.empty() ? "" : ": " + detail);
}

void ObfsSetup::emit_frame(wire::WsOpcode op, ByteSpan payload) {
  const bool masked = side_ == Side::kClient;
  Bytes f(wire::ws_header_size(payload.size(), masked) + payload.size());
  wire::WsMask mask{};
  if (masked) rng_.fill(mask);
  const std::size_t h =
      wire::write_ws_header(f.data(), op, payload.size(), masked ? &mask : nullptr);
  std::copy(payload.begin(), payload.end(), f.begin() + static_cast<std::ptrdiff_t>(h));
  if (masked) wire::ws_apply_mask(MutableByteSpan(f.data() + h, payload.size()), mask);
  emit(std::move(f));
}

void ObfsSetup::start(Instant now) {
  started_ = now;
  deadline_ = now + p_.timeout;
  if (p_.websocket) {
    phase_ = Phase::kHead;
    if (side_ == Side::kClient) {
      std::string req = wire::build_ws_request(p_.host, p_.key, rng_);
      ws_key_ = wire::ws_request_key(req);
      emit(Bytes(req.begin(), req.end()));
    }
    return;
  }
  enter_after_head(now);
}

void ObfsSetup::send_junk() {
  if (!p_.websocket) {
    emit(wire::build_tcp_junk(p_.junk, rng_));
    return;
  }
  Bytes body;
  for (std::uint32_t i = 0; i < p_.junk.count; ++i) {
    body.resize(p_.junk.pick_len(rng_));
    rng_.fill(body);
    emit_frame(wire::WsOpcode::kBinary, body);
  }
}

void ObfsSetup::send_nonce() {
  if (p_.websocket) {
    emit_frame(wire::WsOpcode::kBinary, own_);
  } else {
    emit(Bytes(own_.begin(), own_.end()));
  }
}

void ObfsSetup::enter_after_head(Instant now) {
  if (p_.junk.count == 0) return after_junk();
  junk_deadline_ = now + p_.junk_timeout;
  junk_left_ = p_.junk.count;
  budget_left_ = (static_cast<std::size_t>(p_.junk.count) + 8) * kFrameBytes;
  if (!p_.websocket) junk_reader_.emplace(p_.junk.count);
  if (side_ == Side::kClient) send_junk();  // the client sends first, then discards
  phase_ = Phase::kJunkIn;
}

void ObfsSetup::after_junk() {
  junk_deadline_.reset();
  if (side_ == Side::kServer && p_.junk.count > 0) send_junk();  // after discarding
  if (side_ == Side::kClient) send_nonce();                      // the client's comes first
  budget_left_ = 2 * kFrameBytes;
  phase_ = Phase::kNonce;
}

void ObfsSetup::on_payload(ByteSpan p) {
  if (phase_ == Phase::kJunkIn) {
    if (--junk_left_ == 0) after_junk();  // one frame = one junk record, payload dropped
    return;
  }
  const std::size_t n = std::min(p.size(), own_.size() - peer_have_);
  std::copy_n(p.begin(), n, peer_.begin() + static_cast<std::ptrdiff_t>(peer_have_));
  peer_have_ += n;
  append(payload_leftover_, p.subspan(n));
  if (peer_have_ == peer_.size()) {
    if (side_ == Side::kServer) send_nonce();
    phase_ = Phase::kDone;
    state_ = SetupState::kDone;
  }
}

bool ObfsSetup::next_frame(Instant) {
  auto h = wire::parse_ws_header(in_, /*from_client=*/side_ == Side::kServer);
  if (!h) {
    fail(ObfsFailure::kBadFrame, wire::to_string(h.error()));
    return false;
  }
  if (!h->has_value()) return false;
  const wire::WsFrameHeader fh = **h;
  const std::size_t total = fh.header_size + static_cast<std::size_t>(fh.length);
  if (total > budget_left_) {
    fail(ObfsFailure::kBudget, {});
    return false;
  }
  if (in_.size() < total) return false;
  budget_left_ -= total;
  const MutableByteSpan payload(in_.data() + fh.header_size, static_cast<std::size_t>(fh.length));
  if (fh.masked) wire::ws_apply_mask(payload, fh.mask);
  switch (fh.opcode) {
    case wire::WsOpcode::kBinary:
    case wire::WsOpcode::kContinuation: on_payload(payload); break;
    case wire::WsOpcode::kPing: emit_frame(wire::WsOpcode::kPong, payload); break;
    case wire::WsOpcode::kClose:
      emit_frame(wire::WsOpcode::kClose, payload.first(std::min<std::size_t>(payload.size(), 2)));
      fail(ObfsFailure::kWebSocketClose, {});
      break;
    default: break;  // text and Pong: skipped
  }
  in_.erase(in_.begin(), in_.begin() + static_cast<std::ptrdiff_t>(total));
  return state_ == SetupState::kRunning;
}

void ObfsSetup::process(Instant now) {
  while (state_ == SetupState::kRunning) {
    if (phase_ == Phase::kDecoy) return answer_as_nginx(now);
    if (phase_ == Phase::kHead) {
      const std::size_t end =
          wire::ws_head_end(ByteSpan(in_).first(std::min(in_.size(), wire::kWsMaxHead)));
      if (end == 0) {
        if (in_.size() >= wire::kWsMaxHead) fail(ObfsFailure::kHeadTooLarge, {});
        return;
      }
      const ByteSpan head(in_.data(), end);
      if (side_ == Side::kServer) {
        wire::WsVerdict v = wire::check_ws_request(head, p_.key);
        if (!v.response) {
          reject_ = v.reject;
          phase_ = Phase::kDecoy;
          continue;
        }
        emit(Bytes(v.response->begin(), v.response->end()));
      } else if (!wire::ws_response_ok(head, ws_key_)) {
        const std::string_view text(reinterpret_cast<const char*>(head.data()),
                                    std::min<std::size_t>(head.size(), 40));
        fail(ObfsFailure::kBadResponse, std::string(text.substr(0, text.find('\r'))));
        return;
      }
      in_.erase(in_.begin(), in_.begin() + static_cast<std::ptrdiff_t>(end));
      enter_after_head(now);
      continue;
    }
    if (p_.websocket) {
      if (!next_frame(now)) return;
      continue;
    }
    if (phase_ == Phase::kJunkIn) {
      const std::size_t used = junk_reader_->feed(in_);
      in_.erase(in_.begin(), in_.begin() + static_cast<std::ptrdiff_t>(used));
      if (junk_reader_->error()) return fail(ObfsFailure::kJunkTooLong, {});
      if (!junk_reader_->done()) return;
      after_junk();
      continue;
    }
    // Raw nonce.
    const std::size_t n = std::min(in_.size(), peer_.size() - peer_have_);
    if (n == 0) return;
    on_payload(ByteSpan(in_).first(n));
    in_.erase(in_.begin(), in_.begin() + static_cast<std::ptrdiff_t>(n));
  }
}

void ObfsSetup::answer_as_nginx(Instant now) {
  while (state_ == SetupState::kRunning) {
    const auto skip = static_cast<std::size_t>(std::min<std::uint64_t>(decoy_discard_, in_.size()));
    in_.erase(in_.begin(), in_.begin() + static_cast<std::ptrdiff_t>(skip));
    decoy_discard_ -= skip;
    if (decoy_discard_ > 0) return;
    const std::size_t end =
        wire::ws_head_end(ByteSpan(in_).first(std::min(in_.size(), wire::kWsMaxHead)));
    if (end == 0) {
      if (in_.size() >= wire::kWsMaxHead) {
        fail(ObfsFailure::kNotUpgrade, "then a head over 4096 bytes");
      }
      return;
    }
    ++decoy_requests_;
    const auto secs = std::chrono::duration_cast<std::chrono::seconds>(now - started_).count();
    const wire::DecoyAnswer a = wire::nginx_answer(
        std::string_view(reinterpret_cast<const char*>(in_.data()), end),
        p_.decoy_keepalive > Duration::zero() ? decoy_requests_ : wire::kNginxKeepaliveRequests,
        p_.unix_now + static_cast<std::uint64_t>(std::max<std::int64_t>(secs, 0)));
    emit(Bytes(a.bytes.begin(), a.bytes.end()));
    in_.erase(in_.begin(), in_.begin() + static_cast<std::ptrdiff_t>(end));
    if (!a.keep_alive || a.chunked_body || a.body_bytes > kDecoyMaxBody) {
      fail(ObfsFailure::kNotUpgrade, wire::to_string(reject_));
      return;
    }
    decoy_discard_ = a.body_bytes;
    deadline_ = now + p_.decoy_keepalive;
  }
}

void ObfsSetup::on_bytes(ByteSpan in, Instant now) {
  if (state_ == SetupState::kFailed) return;
  append(in_, in);
  if (state_ == SetupState::kDone) return;  // leftover for the data phase
  process(now);
}

void ObfsSetup::on_peer_closed() {
  // A connection that got nginx's answer ends as answered, however it ends.
  if (phase_ == Phase::kDecoy) return fail(ObfsFailure::kNotUpgrade, wire::to_string(reject_));
  fail(ObfsFailure::kPeerClosed, {});
}

void ObfsSetup::on_timer(Instant now) {
  if (state_ != SetupState::kRunning) return;
  if ((deadline_ && now >= *deadline_) || (junk_deadline_ && now >= *junk_deadline_)) {
    if (phase_ == Phase::kDecoy) return fail(ObfsFailure::kNotUpgrade, wire::to_string(reject_));
    fail(ObfsFailure::kTimeout, phase_ == Phase::kJunkIn ? "in the junk phase" : "");
  }
}

std::optional<Instant> ObfsSetup::deadline() const {
  if (state_ != SetupState::kRunning) return std::nullopt;
  if (junk_deadline_ && (!deadline_ || *junk_deadline_ < *deadline_)) return junk_deadline_;
  return deadline_;
}

std::vector<SetupOutput> ObfsSetup::take_output() { return std::exchange(out_, {}); }

std::unique_ptr<Stream> ObfsSetup::into_stream(std::unique_ptr<Stream> lower) {
  if (state_ != SetupState::kDone) return nullptr;
  if (!p_.websocket) {
    return std::make_unique<ObfsXorStream>(std::move(lower), p_.key, own_, peer_,
                                           std::exchange(in_, {}), crypto::kChaCha20StreamLimit,
                                           p_.header_xor);
  }
  auto ws = std::make_unique<WebSocketStream>(std::move(lower), side_ == Side::kClient, rng_,
                                              std::exchange(payload_leftover_, {}),
                                              std::exchange(in_, {}));
  return std::make_unique<ObfsXorStream>(std::move(ws), p_.key, own_, peer_, Bytes{},
                                         crypto::kChaCha20StreamLimit, p_.header_xor);
}

}  // namespace qeli::transport
