// ServerHandshake: the server side of the qeli 0.7.16 handshake as a sans-I/O state
// machine (docs/PROTOCOL.md "Server state machine").
//
//   fake-tls: ← ClientHello   → ServerHello, CCS, Certificate, Finished, NST, proof record
//             ← AUTH | JOIN   → (event to the caller)   accept → "OK:{json}" | "JOINOK"
//                                                      reject → nothing (silent close)
//   plain:    ← client_pub(32)  → server_pub(32) ‖ proof record  ← AUTH ...
//
// The machine does NOT verify passwords or tokens: after AUTH it emits an AuthRequest
// (user, password, device id, whether the client key proof verified) and waits; the
// caller runs Argon2id/lookups and then calls accept(AuthOk) or reject(). For JOIN it
// emits a JoinRequest and waits for accept_join() or reject().
//
// The server never writes an error on the wire: every failure (and reject()) ends in
// state kFailed with a reason; the caller closes the connection and counts the reason.
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "base/bytes.h"
#include "base/clock.h"
#include "crypto/random.h"
#include "crypto/secret_bytes.h"
#include "crypto/sha256.h"
#include "crypto/x25519.h"
#include "handshake/auth_message.h"
#include "handshake/auth_ok.h"
#include "handshake/tls_binding.h"
#include "handshake/types.h"
#include "wire/packet_codec.h"

namespace qeli::handshake {

/// obf.fragmentation: the ServerHello is written in several chunks of random size in
/// [min_chunk, max_chunk] (at most max_fragments; the last takes the rest), 2 ms apart;
/// Certificate ‖ Finished are split in two halves; the NewSessionTicket comes last.
struct Fragmentation {
  bool enabled = false;
  std::size_t min_chunk = 64;
  std::size_t max_chunk = 256;
  std::size_t max_fragments = 8;
};

struct ServerConfig {
  Mode mode = Mode::kFakeTls;
  /// The profile's static identity key. Must outlive the handshake.
  const crypto::X25519KeyPair* identity = nullptr;
  /// H-1 `[auth] bind_static_to_session` (default on).
  bool bind_static = true;
  /// `auth.require_client_key_proof`: hidden identity. The proof message carries only the
  /// proof (never the static key) and a client without a valid key proof is dropped.
  bool require_client_key_proof = false;
  Fragmentation fragmentation;
  /// obf.anti_fingerprinting: random think time before the flight, 0..max_jitter.
  Duration max_jitter{0};
  Duration timeout = kDefaultHandshakeTimeout;
  /// Our extension bits; advertised as "x_caps" in AUTH OK when non-zero.
  std::uint32_t extensions = caps::kCapabilityExchange;
  /// Datagram carriers (UDP): a record that fails to authenticate while waiting for AUTH
  /// is dropped instead of failing the handshake — anyone can inject a datagram.
  bool drop_unauthenticated_records = false;
  /// reality-tls: the outer TLS session's exporter. With caps::kTlsBinding in
  /// `extensions`, AUTH OK carries our proof (`x_tls_bind`, handshake/tls_binding.h).
  std::optional<TlsExporter> tls_exporter;
};

struct AuthRequest {
  std::string user;
  std::string password;
  std::optional<DeviceId> device_id;  ///< absent for the older AUTH form
  bool key_proof_ok = false;          ///< the client proved it knows our static key
  /// The session's join secret (key_schedule.h), for its JOINed connections' proofs.
  std::shared_ptr<const crypto::Key32> join_secret;
};

struct JoinRequest {
  JoinToken token{};
  std::uint8_t stream_index = 0;
  /// Our extension (PROTOCOL §19): the proof the JOIN carried, if any, and this
  /// connection's transcript hash to check it against the session's join secret
  /// (key_schedule.h join_proof).
  std::optional<std::array<std::uint8_t, 32>> proof;
  crypto::Digest32 transcript{};
};

using ServerEvent = std::variant<AuthRequest, JoinRequest>;

struct ServerSession {
  wire::PacketCodec send;          ///< server→client (already used for the proof and OK records)
  wire::PacketCodec recv;          ///< client→server (replay window holds the AUTH record)
  std::optional<std::string> sni;  ///< from the ClientHello (fake-tls), informational
  bool joined = false;             ///< a bonded stream (JOIN) rather than a new session
  /// x_caps we sent (0: none), or for a JOIN what its session's AUTH OK offered (less
  /// the TLS binding); the client answers in a kCtrlCapabilities control frame.
  std::uint32_t advertised_caps = 0;
  Bytes leftover;  ///< bytes read past the AUTH/JOIN record (caller owns)
};

class ServerHandshake {
 public:
  /// `config.identity` and `rng` must outlive the object.
  ServerHandshake(const ServerConfig& config, crypto::Rng& rng);
  ~ServerHandshake();
  ServerHandshake(const ServerHandshake&) = delete;
  ServerHandshake& operator=(const ServerHandshake&) = delete;

  /// Arms the deadline (now + timeout); call when the connection is accepted.
  void start(Instant now);
  void on_bytes(ByteSpan in, Instant now);
  void on_peer_closed();
  void on_timer(Instant now);

  std::vector<Outgoing> take_output();
  /// The pending AuthRequest / JoinRequest, once (nullopt otherwise).
  std::optional<ServerEvent> take_event();

  /// Answers a pending AuthRequest with "OK:" ‖ JSON; sets x_caps from the config.
  /// Ignored unless an AuthRequest is pending.
  void accept(AuthOk ok);
  /// Answers a pending JoinRequest with "JOINOK".
  void accept_join();
  /// Refuses a pending request: state becomes kFailed(kRejected), nothing is sent.
  void reject();

  std::optional<Instant> deadline() const;
  State state() const;
  Failure failure() const;
  ServerSession take_session();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace qeli::handshake
