#include "tls/key_schedule.h"

#include <cstdlib>

#include "crypto/hkdf.h"

namespace qeli::tls {
namespace {

Secret expand_label(crypto::DigestAlgorithm alg, const Secret& secret, std::string_view label,
                    std::span<const std::uint8_t> context, std::size_t n) {
  Secret out = Secret::zeros(n);
  if (!crypto::hkdf_expand_label(alg, secret.span(), label, context, out.mutable_span())) {
    std::abort();  // every label here is a constant well within the limits
  }
  return out;
}

Secret extract(crypto::DigestAlgorithm alg, std::span<const std::uint8_t> salt,
               std::span<const std::uint8_t> ikm) {
  Secret out = Secret::zeros(crypto::digest_size(alg));
  crypto::hkdf_extract(alg, salt, ikm, out.mutable_span());
  return out;
}

crypto::DigestValue empty_hash(crypto::DigestAlgorithm alg) { return crypto::digest(alg, {}); }

}  // namespace

Secret derive_secret(crypto::DigestAlgorithm alg, const Secret& secret, std::string_view label,
                     std::span<const std::uint8_t> transcript_hash) {
  return expand_label(alg, secret, label, transcript_hash, crypto::digest_size(alg));
}

TrafficKeys traffic_keys(CipherSuite suite, const Secret& traffic_secret) {
  const auto alg = hash_of(suite);
  TrafficKeys k;
  k.key_size = key_size_of(suite);
  if (!crypto::hkdf_expand_label(alg, traffic_secret.span(), "key", {},
                                 {k.key.data(), k.key_size}) ||
      !crypto::hkdf_expand_label(alg, traffic_secret.span(), "iv", {}, k.iv)) {
    std::abort();
  }
  return k;
}

crypto::DigestValue finished_verify_data(CipherSuite suite, const Secret& base_key,
                                         std::span<const std::uint8_t> transcript_hash) {
  const auto alg = hash_of(suite);
  const Secret finished_key = expand_label(alg, base_key, "finished", {}, crypto::digest_size(alg));
  return crypto::hmac(alg, finished_key.span(), transcript_hash);
}

Secret next_traffic_secret(CipherSuite suite, const Secret& secret) {
  const auto alg = hash_of(suite);
  return expand_label(alg, secret, "traffic upd", {}, crypto::digest_size(alg));
}

bool export_keying_material(CipherSuite suite, const Secret& exporter_master,
                            std::string_view label, std::span<const std::uint8_t> context,
                            std::span<std::uint8_t> out) {
  const auto alg = hash_of(suite);
  if (out.empty() || label.size() > 249) return false;
  const Secret per_label = derive_secret(alg, exporter_master, label, empty_hash(alg).span());
  const crypto::DigestValue context_hash = crypto::digest(alg, context);
  return crypto::hkdf_expand_label(alg, per_label.span(), "exporter", context_hash.span(), out);
}

Secret ticket_psk(CipherSuite suite, const Secret& resumption_master,
                  std::span<const std::uint8_t> ticket_nonce) {
  const auto alg = hash_of(suite);
  return expand_label(alg, resumption_master, "resumption", ticket_nonce, crypto::digest_size(alg));
}

KeySchedule::KeySchedule(CipherSuite suite) : suite_(suite), alg_(hash_of(suite)) {
  const std::array<std::uint8_t, crypto::kMaxDigestSize> zeros{};
  early_ = extract(alg_, {}, {zeros.data(), crypto::digest_size(alg_)});
}

void KeySchedule::with_shared_secret(std::span<const std::uint8_t> shared) {
  if (early_.size() == 0 || handshake_.size() != 0) std::abort();
  const Secret derived = derive_secret(alg_, early_, "derived", empty_hash(alg_).span());
  handshake_ = extract(alg_, derived.span(), shared);
}

HandshakeSecrets KeySchedule::handshake_secrets(std::span<const std::uint8_t> hello_hash) {
  if (handshake_.size() == 0) std::abort();
  HandshakeSecrets s{derive_secret(alg_, handshake_, "c hs traffic", hello_hash),
                     derive_secret(alg_, handshake_, "s hs traffic", hello_hash)};
  const Secret derived = derive_secret(alg_, handshake_, "derived", empty_hash(alg_).span());
  const std::array<std::uint8_t, crypto::kMaxDigestSize> zeros{};
  master_ = extract(alg_, derived.span(), {zeros.data(), crypto::digest_size(alg_)});
  return s;
}

ApplicationSecrets KeySchedule::application_secrets(
    std::span<const std::uint8_t> server_finished_hash) {
  if (master_.size() == 0) std::abort();
  return {derive_secret(alg_, master_, "c ap traffic", server_finished_hash),
          derive_secret(alg_, master_, "s ap traffic", server_finished_hash),
          derive_secret(alg_, master_, "exp master", server_finished_hash)};
}

Secret KeySchedule::resumption_master(std::span<const std::uint8_t> client_finished_hash) const {
  if (master_.size() == 0) std::abort();
  return derive_secret(alg_, master_, "res master", client_finished_hash);
}

}  // namespace qeli::tls
