#include "tls/key_exchange.h"

#include <cstring>

#include "tls/constants.h"

namespace qeli::tls {
namespace {

bool x25519_into(std::span<const std::uint8_t, 32> priv, ByteSpan peer, std::uint8_t* out) {
  if (peer.size() != kX25519ShareSize) return false;
  auto s = crypto::x25519(priv, std::span<const std::uint8_t, 32>(peer.data(), 32));
  if (!s) return false;
  std::memcpy(out, s->data(), 32);
  return true;
}

}  // namespace

Bytes ClientKeyShares::hybrid_share() const {
  Bytes b(mlkem->public_key.begin(), mlkem->public_key.end());
  append(b, hybrid_x25519.public_key);
  return b;
}

bool ClientKeyShares::separate_hybrid_key() const {
  return mlkem.has_value() && hybrid_x25519.public_key != x25519.public_key;
}

Result<SharedSecret, TlsError> ClientKeyShares::agree(std::uint16_t group, ByteSpan server_share,
                                                      bool standalone_for_hybrid) const {
  SharedSecret out;
  if (group == group::kX25519) {
    if (!x25519_into(x25519.private_key.span(), server_share, out.bytes.data())) {
      return fail(TlsError::kBadKeyShare);
    }
    out.size = 32;
    return out;
  }
  if (group == group::kX25519MlKem768 && mlkem) {
    if (server_share.size() != kHybridServerShareSize) return fail(TlsError::kBadKeyShare);
    const crypto::Key32 ss = crypto::mlkem768_decapsulate(
        *mlkem->secret_key,
        std::span<const std::uint8_t, crypto::kMlKem768CiphertextSize>(server_share.data(), 1088));
    std::memcpy(out.bytes.data(), ss.data(), 32);
    const crypto::X25519KeyPair& half = standalone_for_hybrid ? x25519 : hybrid_x25519;
    if (!x25519_into(half.private_key.span(), server_share.subspan(1088), out.bytes.data() + 32)) {
      return fail(TlsError::kBadKeyShare);
    }
    out.size = 64;
    return out;
  }
  return fail(TlsError::kUnsupportedGroup);
}

ClientKeyShares generate_client_key_shares(crypto::Rng& rng, bool hybrid) {
  ClientKeyShares k{crypto::x25519_generate(rng), {}, std::nullopt};
  if (hybrid) {
    k.mlkem = crypto::mlkem768_generate(rng);
    k.hybrid_x25519 = crypto::x25519_generate(rng);
  }
  return k;
}

Result<ServerKeyExchange, TlsError> server_key_exchange(std::uint16_t group, ByteSpan client_share,
                                                        crypto::Rng& rng) {
  ServerKeyExchange out;
  const crypto::X25519KeyPair eph = crypto::x25519_generate(rng);
  if (group == group::kX25519) {
    if (!x25519_into(eph.private_key.span(), client_share, out.shared.bytes.data())) {
      return fail(TlsError::kBadKeyShare);
    }
    out.shared.size = 32;
    out.key_exchange.assign(eph.public_key.begin(), eph.public_key.end());
    return out;
  }
  if (group == group::kX25519MlKem768) {
    if (client_share.size() != kHybridClientShareSize) return fail(TlsError::kBadKeyShare);
    const auto enc = crypto::mlkem768_encapsulate(
        std::span<const std::uint8_t, crypto::kMlKem768PublicKeySize>(client_share.data(), 1184),
        rng);
    std::memcpy(out.shared.bytes.data(), enc.shared_secret.data(), 32);
    if (!x25519_into(eph.private_key.span(), client_share.subspan(1184),
                     out.shared.bytes.data() + 32)) {
      return fail(TlsError::kBadKeyShare);
    }
    out.shared.size = 64;
    out.key_exchange.assign(enc.ciphertext.begin(), enc.ciphertext.end());
    append(out.key_exchange, eph.public_key);
    return out;
  }
  return fail(TlsError::kUnsupportedGroup);
}

}  // namespace qeli::tls
