// TCP obfs's set-up flight as a transport::StreamSetup (qeli 0.7.16 `obfs.rs`
// ObfsStream::connect / accept; reference §3.7; docs/PROTOCOL.md "obfs set-up"):
//
//   client                                         server
//   [GET <secret path> … Upgrade: websocket] ─→    checks every field; 101 or nginx's 404
//                                         ←─       [HTTP/1.1 101 … Sec-WebSocket-Accept]
//   jc junk records                        ─→      reads and discards jc records
//                                         ←─       jc junk records
//   nonce(12)                              ─→
//                                         ←─       nonce(12)
//   then ObfsXorStream (over a WebSocketStream with the front) carries the fake-TLS flight
//
// With the front, junk records and nonces are binary WebSocket frames (client frames
// masked); without it, junk is len(u16) ‖ bytes and the nonces are raw. A Ping during
// the set-up is answered at once; a Close fails it.
//
// Bounds against an unauthenticated peer: the head ≤ 4096 bytes, the whole set-up within
// `timeout` (server default 20 s as 0.7.16), the junk phase within 15 s and a byte budget
// ((jc + 8) frames of 16384 + 14 bytes; 2 frames for the nonce). Each failure has a
// reason (failure_kind()) the server counts.
//
// The decoy. A server head that is not our upgrade gets what nginx answers
// (wire/nginx_decoy.h): 404 for a page it does not have, 400, 405 or 505 as nginx, kept
// alive as nginx keeps it (further requests answered alike, a body discarded) until
// `decoy_keepalive` passes without one, the peer closes or an answer says close; the
// set-up then fails as kNotUpgrade. Bounds: each head ≤ 4096 bytes, a body ≤ 64 KiB
// (a larger one: answered, then closed).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "crypto/random.h"
#include "crypto/secret_bytes.h"
#include "transport/obfs_stream.h"
#include "transport/stream_setup.h"
#include "wire/tcp_junk.h"
#include "wire/ws_frame.h"
#include "wire/ws_handshake.h"

namespace qeli::transport {

struct ObfsParams {
  crypto::Key32 key;  ///< wire::derive_obfs_key(PSK)
  bool websocket = true;
  wire::JunkPlan junk;
  /// Client: the Host header (empty: a random decoy name, as 0.7.16 for a bare IP).
  std::string host;
  Duration timeout = std::chrono::seconds(20);
  Duration junk_timeout = std::chrono::seconds(15);
  /// Server: the wall clock at start() (unix seconds), to date nginx's answers.
  std::uint64_t unix_now = 0;
  /// Server: how long a connection that got nginx's answer stays open for the next
  /// request (nginx's keepalive_timeout, 75 s); zero: every answer says
  /// `Connection: close` and the connection ends, as 0.7.16 does.
  Duration decoy_keepalive = std::chrono::seconds(75);
  /// This end speaks the header-only keystream extension (ObfsXorStream `header_xor`).
  bool header_xor = false;
};

/// Why a set-up failed (the server counts each).
enum class ObfsFailure : std::uint8_t {
  kNone,
  kTimeout,        ///< the set-up (or its junk phase) ran out of time
  kPeerClosed,     ///< the connection closed or failed mid-set-up
  kHeadTooLarge,   ///< no CRLFCRLF within 4096 bytes
  kNotUpgrade,     ///< server: not an upgrade to our path (answered as nginx)
  kBadResponse,    ///< client: no 101 or a wrong Sec-WebSocket-Accept
  kJunkTooLong,    ///< a raw junk record over 1400 bytes
  kBadFrame,       ///< a malformed WebSocket frame (too long, reserved bits, masking)
  kBudget,         ///< too many bytes before the nonce
  kWebSocketClose  ///< the peer sent a Close before the nonce
};
const char* to_string(ObfsFailure f);

class ObfsSetup final : public StreamSetup {
 public:
  enum class Side : std::uint8_t { kClient, kServer };
  /// `rng` must outlive the set-up and the streams it builds (WebSocket masks).
  ObfsSetup(Side side, ObfsParams params, crypto::Rng& rng);

  void start(Instant now) override;
  void on_bytes(ByteSpan in, Instant now) override;
  void on_peer_closed() override;
  void on_timer(Instant now) override;
  std::vector<SetupOutput> take_output() override;
  std::optional<Instant> deadline() const override;
  SetupState state() const override { return state_; }
  std::string failure() const override { return failure_detail_; }
  std::unique_ptr<Stream> into_stream(std::unique_ptr<Stream> lower) override;

  ObfsFailure failure_kind() const { return failure_kind_; }
  /// Server: why the first head was not our upgrade (valid when failure_kind() == kNotUpgrade).
  wire::WsReject reject_reason() const { return reject_; }

 private:
  enum class Phase : std::uint8_t { kHead, kDecoy, kJunkIn, kNonce, kDone };
  void fail(ObfsFailure kind, std::string detail);
  void emit(Bytes b) { out_.push_back({std::move(b), {}}); }
  void emit_frame(wire::WsOpcode op, ByteSpan payload);
  void send_junk();
  void send_nonce();
  void enter_after_head(Instant now);
  void after_junk();
  void process(Instant now);
  // Phase::kDecoy: answers each complete head in in_ as nginx would.
  void answer_as_nginx(Instant now);
  // WebSocket phases: parses whole frames from in_; false when more bytes are needed.
  bool next_frame(Instant now);
  void on_payload(ByteSpan p);

  Side side_;
  ObfsParams p_;
  crypto::Rng& rng_;
  SetupState state_ = SetupState::kRunning;
  Phase phase_ = Phase::kHead;
  ObfsFailure failure_kind_ = ObfsFailure::kNone;
  std::string failure_detail_;
  wire::WsReject reject_ = wire::WsReject::kNotGet;
  std::vector<SetupOutput> out_;
  Bytes in_;  // raw bytes not yet consumed
  std::string ws_key_;
  std::optional<Instant> deadline_;
  std::optional<Instant> junk_deadline_;
  std::uint32_t junk_left_ = 0;
  std::optional<wire::TcpJunkReader> junk_reader_;
  std::size_t budget_left_ = 0;  // raw bytes the WebSocket phases may still take
  ObfsNonce own_{};
  ObfsNonce peer_{};
  std::size_t peer_have_ = 0;
  Bytes payload_leftover_;  // WebSocket payload bytes past the nonce (already unmasked)
  Instant started_{};
  std::uint32_t decoy_requests_ = 0;  // requests answered as nginx
  std::uint64_t decoy_discard_ = 0;   // request body bytes still to skip
};

}  // namespace qeli::transport
