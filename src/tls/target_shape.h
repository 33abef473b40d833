// TargetShape: how a real TLS 1.3 site (the reality-tls "target") answers a Chromium
// ClientHello, everything our terminator needs to answer our clients the same way:
//
//   ServerHello   its cipher suite, key-share group and extension order; whether a
//                 dummy ChangeCipherSpec follows (RFC 8446 §D.4)
//   flight        its EncryptedExtensions (ALPN and all, verbatim), its real certificate
//                 chain (and the CompressedCertificate it sent, when it compressed), the
//                 CertificateVerify scheme and signature length its key gives, and how
//                 it cut the flight into records (where each record ends, its padding)
//   tickets       the NewSessionTicket records it sends after the client Finished: how
//                 many, their sizes, lifetimes, nonces and extensions
//
// A shape comes from probing the target (tls/shape_extractor.h, transport's prober) or,
// when the target cannot be reached, from fallback_shape(). Immutable once built; shared
// (std::shared_ptr<const TargetShape>) between connections and replaced on refresh.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "base/bytes.h"
#include "crypto/random.h"
#include "tls/cipher_suite.h"

namespace qeli::tls {

/// One encrypted record of the target's first flight (EE … Finished).
struct FlightRecordShape {
  /// Offset just past this record's content in the concatenated flight
  /// EE ‖ Certificate ‖ CertificateVerify ‖ Finished as the target sent it.
  std::size_t content_end = 0;
  std::size_t padding = 0;  ///< zero bytes after the inner content type (§5.4)
};

/// One NewSessionTicket message the target sent.
struct TicketShape {
  std::uint32_t lifetime = 0;
  Bytes nonce;  ///< verbatim (OpenSSL: an 8-byte counter, the same every time)
  std::size_t ticket_size = 0;
  Bytes extensions;  ///< the extension block content, verbatim (e.g. early_data)
};

/// A record of NewSessionTickets (most servers send one ticket per record).
struct TicketRecordShape {
  std::vector<TicketShape> tickets;
  std::size_t padding = 0;
};

struct TargetShape {
  // ServerHello.
  CipherSuite suite = CipherSuite::kAes128GcmSha256;
  std::uint16_t group = 0x001D;
  std::vector<std::uint16_t> server_hello_extensions = {0x002B, 0x0033};  ///< wire order
  bool change_cipher_spec = true;

  // First flight.
  Bytes encrypted_extensions;    ///< whole message, verbatim
  Bytes certificate_body;        ///< Certificate body (uncompressed), verbatim
  Bytes compressed_certificate;  ///< whole CompressedCertificate message, if it sent one
  std::uint16_t certificate_compression = 0;  ///< its algorithm (0: sent uncompressed)
  std::uint16_t signature_scheme = 0x0403;
  std::size_t signature_size = 72;  ///< as observed (ECDSA varies; tls/fake_signature.h)
  std::vector<FlightRecordShape> flight_records;

  // After the client Finished.
  std::vector<TicketRecordShape> ticket_records;
  /// Application-data records the target sends unprompted right after its tickets (an h2
  /// server's SETTINGS frame: nginx sends 62 bytes), wire sizes. The terminator answers
  /// our Chromium-hello clients with padding-only records of these sizes (RFC 8446 §5.4:
  /// empty application data, zero padding), which our client skips.
  std::vector<std::size_t> unprompted_records;

  // Where it came from (logs, `qeli stats`).
  bool probed = false;
  std::string source;  ///< "probe host:port sni=…" or "fallback: <why>"
  std::chrono::system_clock::time_point obtained{};

  /// Offsets of the messages in the target's flight (for record boundaries).
  std::size_t encrypted_extensions_size() const { return encrypted_extensions.size(); }
  std::size_t certificate_message_size() const;  ///< as sent: compressed or not
  std::size_t flight_size() const;               ///< EE + cert + CV + Finished as sent
};

/// One line for the log and `qeli stats`: suite, group, extension order, EE size and
/// ALPN, chain size and count, compression, CV scheme/size, record sizes, tickets, source.
std::string describe(const TargetShape& s);

/// The shape used when the target cannot be reached: what OpenSSL 3 / nginx (the most
/// common TLS 1.3 stack) sends a Chromium hello — TLS_AES_128_GCM_SHA256, X25519,
/// [supported_versions, key_share], CCS, EE with ALPN h2, one record per message, two
/// tickets — with a freshly generated ECDSA P-256 leaf for `sni` under a CA certificate of
/// our own, sent as a two-certificate chain (there is no real chain to borrow). `why` goes
/// into `source`.
TargetShape fallback_shape(std::string_view sni, std::string_view why, crypto::Rng& rng);

}  // namespace qeli::tls
