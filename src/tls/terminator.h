// Terminator: the server side of a reality-tls connection from one of our clients (the
// REALITY gate already decided the hello carries a valid token), as a sans-I/O machine.
// It answers the way the target (TargetShape) answers a Chromium hello:
//
//   ServerHello  the target's suite (when the client offered it; a 0.7.16 realtls client
//                gets 0x1301/0x1302 only), the target's group when the client sent a
//                share for it, the target's extension order, our random, the client's
//                session id echoed; then the dummy CCS if the target sends one
//   flight       the target's EncryptedExtensions (its ALPN, unless the client did not
//                offer it: then without ALPN), its real chain (its CompressedCertificate
//                bytes when the client offered that algorithm), a CertificateVerify of
//                the target's scheme and signature length (tls/fake_signature.h), our
//                Finished; cut into records where the target cut its flight, with its
//                padding
//   tickets      after the client's Finished verifies: the target's NewSessionTicket
//                records (count, sizes, lifetimes, nonces, extensions; random tickets)
//
// It checks the ClientHello (TLS 1.3, a share it can use), at most one dummy CCS, and the
// client Finished against the transcript. No HelloRetryRequest: a client without a usable
// share fails (kHandshakeFailure) — ours always send both.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "base/bytes.h"
#include "base/clock.h"
#include "crypto/random.h"
#include "tls/alert.h"
#include "tls/client_hello.h"
#include "tls/handshake_machine.h"
#include "tls/handshake_reader.h"
#include "tls/hello_classifier.h"
#include "tls/key_schedule.h"
#include "tls/record_buffer.h"
#include "tls/record_channel.h"
#include "tls/target_shape.h"
#include "tls/transcript.h"

namespace qeli::tls {

struct TerminatorConfig {
  std::shared_ptr<const TargetShape> shape;
  Duration timeout = std::chrono::seconds(15);
  /// Answer a hybrid share the way a 0.7.16 realtls server does: its X25519 half against
  /// the client's stand-alone 0x001D share. Only for interop tests of our client
  /// (tls/client_handshake.h); a real server leaves it off.
  bool emulate_qeli0716_hybrid = false;
};

/// What the terminator hands on (into_established(), once): both directions, ready.
struct ServerEstablished {
  CipherSuite suite;
  std::uint16_t group;
  HelloFamily client_family;
  std::optional<std::string> alpn;           ///< what our EncryptedExtensions selected
  Secret exporter_master;                    ///< for export_keying_material (§7.5)
  std::unique_ptr<RecordSender> sender;      ///< server→client, past our tickets
  std::unique_ptr<RecordReceiver> receiver;  ///< client→server, with the leftover fed
};

/// State, failure(), failure_detail(), deadline() and take_output() come from
/// HandshakeMachine.
class Terminator : public HandshakeMachine {
 public:
  Terminator(TerminatorConfig config, crypto::Rng& rng);

  void start(Instant now);
  /// The client's bytes from the first one (the peeked ClientHello included).
  void on_bytes(ByteSpan in, Instant now);
  void on_peer_closed();
  void on_timer(Instant now);

  /// kDone only, once.
  ServerEstablished into_established();

 private:
  void fail_with(TlsError e);
  void process();
  Status<TlsError> on_client_hello(const HandshakeMessage& m);
  Status<TlsError> on_client_record(RecordView v);
  void send_tickets();
  Bytes encrypted_extensions_for(const ClientHelloInfo& ch);

  enum class Step : std::uint8_t { kClientHello, kClientFinished, kDone };

  TerminatorConfig config_;
  crypto::Rng& rng_;
  Step step_ = Step::kClientHello;

  RecordBuffer buf_;
  HandshakeReader hs_;
  Transcript transcript_;
  CipherSuite suite_ = CipherSuite::kAes128GcmSha256;
  std::uint16_t group_ = 0;
  HelloFamily family_ = HelloFamily::kOtherTls13;
  std::optional<std::string> alpn_;
  std::optional<KeySchedule> schedule_;
  std::optional<HandshakeSecrets> hs_secrets_;
  std::optional<ApplicationSecrets> app_secrets_;
  std::optional<RecordProtection> client_hs_;
  std::unique_ptr<RecordSender> sender_;
  bool seen_ccs_ = false;
  std::optional<ServerEstablished> established_;
};

}  // namespace qeli::tls
