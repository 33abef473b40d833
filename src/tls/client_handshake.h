// ClientHandshake: the TLS 1.3 client handshake (RFC 8446 §2, §4) as a sans-I/O machine,
// for reality-tls and the target prober. Bytes and `now` in, bytes out:
//
//   start(now) → ClientHello record
//   on_bytes(…) → ServerHello (+ a dummy CCS) → {EncryptedExtensions, Certificate or
//   CompressedCertificate, CertificateVerify, Finished} under the handshake keys
//   → output: CCS + our Finished → kDone → established() for the RecordSender/Receiver
//
// What it checks: the ServerHello (TLS 1.3 selected, our session id echoed, a suite and a
// group we offered, a well-formed share), message order, the well-formedness of every
// message, the transcript and the server Finished. What it does not: the certificate
// chain and CertificateVerify signature — reality-tls trusts the inner qeli proof (bound
// to this connection by the §7.5 exporter) instead, as REALITY does.
//
// Everything the server sent up to its Finished is kept in server_flight() (record sizes
// and whole messages), which the target prober turns into a shape.
// HelloRetryRequest is refused (kHandshakeFailure): our hello carries shares for both
// groups we support, and no server answering a Chrome hello retries.
//
// A 0.7.16 realtls server that picks X25519MLKEM768 takes the hybrid's X25519 half with
// the key of our stand-alone X25519 share (its own hello uses one key for both). Chromium
// uses two keys, so after a hybrid ServerHello we derive both candidate schedules and keep
// the one that opens the first encrypted record: one extra X25519 and HKDF, no new round
// trip, and our hello stays Chromium's (docs/PROTOCOL.md, "reality-tls").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/bytes.h"
#include "base/clock.h"
#include "crypto/random.h"
#include "tls/alert.h"
#include "tls/cipher_suite.h"
#include "tls/client_hello_builder.h"
#include "tls/handshake_machine.h"
#include "tls/handshake_reader.h"
#include "tls/key_schedule.h"
#include "tls/record_buffer.h"
#include "tls/record_protection.h"
#include "tls/transcript.h"

namespace qeli::tls {

/// One record the server sent during its first flight.
struct FlightRecord {
  ContentType outer;  ///< on the wire (handshake, change_cipher_spec, application_data)
  std::size_t wire_size;
  std::size_t content_size = 0;         ///< plaintext content (decrypted, padding and type removed)
  std::vector<HandshakeType> messages;  ///< handshake messages that END in this record
};

/// The server's first flight as we saw it.
struct ServerFlight {
  std::vector<FlightRecord> records;  ///< in order, up to the one holding Finished
  Bytes server_hello;                 ///< whole message
  Bytes encrypted_extensions;         ///< whole message
  Bytes certificate;                  ///< whole Certificate or CompressedCertificate message
  Bytes certificate_body;             ///< the (decompressed) Certificate body
  std::uint16_t certificate_compression = 0;  ///< 0 = sent uncompressed
  Bytes certificate_verify;                   ///< whole message
  Bytes finished;                             ///< whole message
};

struct ClientHandshakeConfig {
  /// Suites we accept from the server (it may pick any we offered in the hello).
  std::vector<CipherSuite> suites = {CipherSuite::kAes128GcmSha256, CipherSuite::kAes256GcmSha384,
                                     CipherSuite::kChaCha20Poly1305Sha256};
  Duration timeout = std::chrono::seconds(15);
};

/// What the handshake established (into_established(), once).
struct ClientEstablished {
  CipherSuite suite;
  std::uint16_t group;
  std::optional<std::string> alpn;
  Secret client_traffic;   ///< client_application_traffic_secret_0 (our send key)
  Secret server_traffic;   ///< server_application_traffic_secret_0 (our receive key)
  Secret exporter_master;  ///< for export_keying_material (§7.5)
  Bytes leftover;          ///< bytes received past the server Finished (tickets, data)
};

/// State, failure(), failure_detail(), deadline() and take_output() come from
/// HandshakeMachine.
class ClientHandshake : public HandshakeMachine {
 public:
  /// `hello` is the finished ClientHello (a token may already be patched into it) with
  /// the private keys of its shares.
  ClientHandshake(BuiltClientHello hello, ClientHandshakeConfig config);

  void start(Instant now);
  void on_bytes(ByteSpan in, Instant now);
  void on_peer_closed();
  void on_timer(Instant now);

  const ServerFlight& server_flight() const { return flight_; }
  const Bytes& client_hello_record() const { return hello_.record; }
  /// After the first encrypted record: the server took the hybrid's X25519 half with our
  /// stand-alone key (a 0.7.16 realtls server).
  bool server_reused_x25519_key() const { return used_alt_; }

  /// kDone only, once.
  ClientEstablished into_established();

 private:
  void fail_with(TlsError e);
  void process();
  Status<TlsError> on_plaintext(const RecordView& v);
  Status<TlsError> on_server_hello(const HandshakeMessage& m);
  Status<TlsError> on_encrypted(RecordView v);
  Result<OpenedRecord, TlsError> open_first_or_next(MutableByteSpan record);
  Status<TlsError> on_flight_message(const HandshakeMessage& m);
  void finish();

  enum class Step : std::uint8_t {
    kServerHello,
    kEncryptedExtensions,
    kCertificate,
    kCertificateVerify,
    kFinished,
    kDone
  };

  BuiltClientHello hello_;
  ClientHandshakeConfig config_;
  Step step_ = Step::kServerHello;

  RecordBuffer buf_;
  HandshakeReader hs_;
  Transcript transcript_;
  std::optional<KeySchedule> schedule_;
  std::optional<HandshakeSecrets> hs_secrets_;
  std::optional<RecordProtection> server_hs_;
  // The 0.7.16 candidate (see above), until the first encrypted record decides.
  std::optional<KeySchedule> alt_schedule_;
  std::optional<HandshakeSecrets> alt_secrets_;
  std::optional<RecordProtection> alt_server_hs_;
  bool used_alt_ = false;
  CipherSuite suite_ = CipherSuite::kAes128GcmSha256;
  std::uint16_t group_ = 0;
  std::optional<std::string> alpn_;
  bool seen_ccs_ = false;
  std::size_t empty_run_ = 0;
  ServerFlight flight_;
  std::optional<ClientEstablished> established_;
};

}  // namespace qeli::tls
