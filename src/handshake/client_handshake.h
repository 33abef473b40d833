// ClientHandshake: the client side of the qeli 0.7.16 handshake as a sans-I/O state
// machine (docs/PROTOCOL.md "Client state machine"). Bytes and `now` go in; bytes to
// send, a deadline and finally a ClientSession come out. No sockets, clock or threads.
//
//   fake-tls:  start → ClientHello
//              ← ServerHello, CCS, Certificate, Finished, NewSessionTicket, proof record
//              → AUTH (or JOIN) record          ← "OK:{json}" (or "JOINOK") record
//              [→ capability control frame, if both ends have extensions]
//   plain:     start → client_pub(32)  ← server_pub(32), proof record  → AUTH  ← OK
//
// Usage: construct, start(now), send take_output(); on every read call on_bytes(),
// send take_output(), check state(); call on_timer(now) at deadline(). When state() is
// kDone, take_session() hands over the two PacketCodecs and any bytes read past the
// last handshake record (they are data-plane records: feed them to the tunnel first).
// On kFailed, failure() is the reason; close the connection.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/bytes.h"
#include "base/clock.h"
#include "crypto/random.h"
#include "crypto/secret_bytes.h"
#include "handshake/auth_message.h"
#include "handshake/auth_ok.h"
#include "handshake/tls_binding.h"
#include "handshake/types.h"
#include "wire/faketls_client_hello.h"
#include "wire/packet_codec.h"

namespace qeli::handshake {

struct ClientConfig {
  Mode mode = Mode::kFakeTls;
  /// H-1 `bind_static` (default on since 0.7.1): fold X25519(eph, server static) into
  /// the data keys. Requires `pinned_server_key`; without it start() fails kPinRequired.
  bool bind_static = true;
  /// The server identity key (from the qeli:// link or known_hosts). Absent = TOFU:
  /// the key the server presents is accepted and reported in the session.
  std::optional<X25519Public> pinned_server_key;

  std::string user;
  std::string password;
  /// Stable per-device id; absent sends the older AUTH form without it.
  std::optional<DeviceId> device_id;
  /// Set for a secondary bonded stream: send JOIN instead of AUTH. With `extensions`
  /// (what the session's AUTH OK negotiated) the JOINOK is followed by our capability
  /// frame: the connection takes the same extensions (not the TLS binding).
  std::optional<JoinMessage> join;
  /// With `join`, toward our server: the session's join secret (ClientSession::
  /// join_secret of its AUTH connection); the JOIN then carries this connection's proof
  /// of it (docs/PROTOCOL.md §19).
  std::shared_ptr<const crypto::Key32> join_secret;

  // fake-tls only:
  wire::Sni sni;
  std::size_t pad_to_min = 0;  ///< wire::kUdpClientHelloMin on UDP
  /// legacy_session_id; random when absent (and no `reality`).
  std::optional<std::array<std::uint8_t, 32>> session_id;
  /// Seal a REALITY token (wire/reality_token.h) into legacy_session_id under
  /// X25519(this hello's ephemeral, pinned_server_key) — as 0.7.16's fake-TLS client
  /// does whenever `reality_sid` and `key` are both configured. Needs
  /// pinned_server_key (without it the session_id stays random).
  struct RealityToken {
    std::array<std::uint8_t, 8> short_id{};
    std::uint64_t unix_secs = 0;  ///< the client's wall clock at connect
  };
  std::optional<RealityToken> reality;

  Duration timeout = kDefaultHandshakeTimeout;
  /// Our extension bits (types.h caps::). 0 = behave byte for byte like 0.7.16.
  std::uint32_t extensions = caps::kCapabilityExchange;
  /// Datagram carriers (UDP): a record that fails to authenticate while waiting for
  /// AUTH OK is dropped instead of failing the handshake — anyone can inject a datagram.
  /// (The server proof stays fatal: it is how a key mismatch shows.)
  bool drop_unauthenticated_replies = false;
  /// reality-tls: the outer TLS session's exporter (handshake/tls_binding.h). With
  /// caps::kTlsBinding in `extensions`, a server that offers the bit must prove the same
  /// exporter in AUTH OK, or the handshake fails kTlsBindingMismatch.
  std::optional<TlsExporter> tls_exporter;
};

struct ClientSession {
  wire::PacketCodec send;  ///< client→server, continues after the AUTH record's counter
  wire::PacketCodec recv;  ///< server→client, replay window already holds the proof/OK
  X25519Public server_key{};
  bool server_key_was_pinned = false;  ///< false: TOFU, the caller should store server_key
  std::optional<AuthOk> auth_ok;       ///< nullopt after a JOIN
  std::uint32_t negotiated_caps = 0;   ///< intersection of both ends' extension bits
  Bytes leftover;                      ///< bytes read past the handshake (caller owns)
  /// caps::kTlsBinding negotiated and the server's proof verified (we sent ours): data
  /// records may go without the inner AEAD both ways (wire/packet_codec.h).
  bool tls_bound = false;
  /// The session's join secret (handshake/key_schedule.h join_secret): what a JOINed
  /// connection of this session proves toward our server.
  crypto::Key32 join_secret;
};

class ClientHandshake {
 public:
  /// `rng` must outlive the object (it draws ephemeral keys, hello randomness, seeds).
  ClientHandshake(ClientConfig config, crypto::Rng& rng);
  ~ClientHandshake();
  ClientHandshake(const ClientHandshake&) = delete;
  ClientHandshake& operator=(const ClientHandshake&) = delete;

  /// Produces the first flight and arms the deadline (now + timeout).
  void start(Instant now);
  /// Bytes from the carrier, split anywhere. Ignored once done or failed (after done,
  /// further bytes are the caller's: they belong to the data plane).
  void on_bytes(ByteSpan in, Instant now);
  /// The carrier closed. After AUTH this is the server's silent rejection (kRejected).
  void on_peer_closed();
  /// Fails with kTimeout if `now` ≥ deadline() and the handshake is still running.
  void on_timer(Instant now);

  /// Bytes to send, in order; the caller owns them. Empty when there is nothing.
  std::vector<Outgoing> take_output();
  std::optional<Instant> deadline() const;
  State state() const;
  Failure failure() const;
  /// Moves the session out. Only valid once, in state kDone (otherwise aborts: a bug).
  ClientSession take_session();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace qeli::handshake
