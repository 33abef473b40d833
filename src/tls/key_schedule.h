// The TLS 1.3 key schedule (RFC 8446 §7.1–§7.5), for one connection without PSK:
//
//   early      = HKDF-Extract(0, 0^H)
//   handshake  = HKDF-Extract(Derive-Secret(early, "derived", ""), (EC)DHE)
//   c/s hs traffic = Derive-Secret(handshake, "c hs traffic"/"s hs traffic", CH..SH)
//   master     = HKDF-Extract(Derive-Secret(handshake, "derived", ""), 0^H)
//   c/s ap traffic, exp master = Derive-Secret(master, ..., CH..server Finished)
//   res master = Derive-Secret(master, "res master", CH..client Finished)
//
// Each step is a function of the previous secret and a transcript hash the caller passes
// (tls/transcript.h), so the same code serves client, server and the RFC 8448 tests.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

#include "crypto/digest.h"
#include "tls/cipher_suite.h"
#include "tls/secret.h"

namespace qeli::tls {

/// Derive-Secret(secret, label, messages) with the messages' hash given (§7.1).
Secret derive_secret(crypto::DigestAlgorithm alg, const Secret& secret, std::string_view label,
                     std::span<const std::uint8_t> transcript_hash);

/// A record key and its static IV (§7.3): key = Expand-Label(secret, "key", "", key_len),
/// iv = Expand-Label(secret, "iv", "", 12).
struct TrafficKeys {
  crypto::SecretBytes<32> key;
  std::size_t key_size = 0;
  std::array<std::uint8_t, 12> iv{};
  std::span<const std::uint8_t> key_span() const { return {key.data(), key_size}; }
};
TrafficKeys traffic_keys(CipherSuite suite, const Secret& traffic_secret);

/// Finished.verify_data = HMAC(Expand-Label(base_key, "finished", "", H), transcript) (§4.4.4).
crypto::DigestValue finished_verify_data(CipherSuite suite, const Secret& base_key,
                                         std::span<const std::uint8_t> transcript_hash);

/// application_traffic_secret_N+1 = Expand-Label(secret_N, "traffic upd", "", H) (§7.2).
Secret next_traffic_secret(CipherSuite suite, const Secret& secret);

/// TLS-Exporter(label, context, out.size()) (§7.5) from the exporter master secret.
/// An absent and an empty context are the same in TLS 1.3. False if `out` is empty or
/// longer than 255·H, or the label longer than 249 bytes.
bool export_keying_material(CipherSuite suite, const Secret& exporter_master,
                            std::string_view label, std::span<const std::uint8_t> context,
                            std::span<std::uint8_t> out);

/// The resumption PSK of one ticket: Expand-Label(res_master, "resumption", nonce, H) (§4.6.1).
Secret ticket_psk(CipherSuite suite, const Secret& resumption_master,
                  std::span<const std::uint8_t> ticket_nonce);

struct HandshakeSecrets {
  Secret client;  ///< client_handshake_traffic_secret
  Secret server;  ///< server_handshake_traffic_secret
};

struct ApplicationSecrets {
  Secret client;           ///< client_application_traffic_secret_0
  Secret server;           ///< server_application_traffic_secret_0
  Secret exporter_master;  ///< exporter_master_secret
};

/// The schedule's state between steps. Call in order: with_shared_secret,
/// handshake_secrets, application_secrets, [resumption_master]. Out-of-order use aborts
/// (a bug).
class KeySchedule {
 public:
  explicit KeySchedule(CipherSuite suite);

  CipherSuite suite() const { return suite_; }
  const Secret& early_secret() const { return early_; }
  const Secret& handshake_secret() const { return handshake_; }
  const Secret& master_secret() const { return master_; }

  /// handshake_secret = Extract(derived(early), shared). `shared` is the (EC)DHE or the
  /// hybrid ML-KEM ‖ X25519 secret (tls/key_exchange.h).
  void with_shared_secret(std::span<const std::uint8_t> shared);
  /// The handshake traffic secrets; `hello_hash` = Hash(ClientHello..ServerHello).
  /// Also derives the master secret.
  HandshakeSecrets handshake_secrets(std::span<const std::uint8_t> hello_hash);
  /// `server_finished_hash` = Hash(ClientHello..server Finished).
  ApplicationSecrets application_secrets(std::span<const std::uint8_t> server_finished_hash);
  /// `client_finished_hash` = Hash(ClientHello..client Finished).
  Secret resumption_master(std::span<const std::uint8_t> client_finished_hash) const;

 private:
  CipherSuite suite_;
  crypto::DigestAlgorithm alg_;
  Secret early_;
  Secret handshake_;
  Secret master_;
};

}  // namespace qeli::tls
