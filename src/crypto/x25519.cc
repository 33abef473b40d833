#include "crypto/x25519.h"

#include <openssl/evp.h>

#include <cstdlib>
#include <memory>

#include "crypto/ct.h"

namespace qeli::crypto {
namespace {

struct PkeyDeleter {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
};
struct PkeyCtxDeleter {
  void operator()(EVP_PKEY_CTX* p) const { EVP_PKEY_CTX_free(p); }
};
using Pkey = std::unique_ptr<EVP_PKEY, PkeyDeleter>;
using PkeyCtx = std::unique_ptr<EVP_PKEY_CTX, PkeyCtxDeleter>;

Pkey private_pkey(std::span<const std::uint8_t, 32> private_key) {
  Pkey k(EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, nullptr, private_key.data(), 32));
  if (!k) std::abort();
  return k;
}

}  // namespace

X25519Public x25519_public(std::span<const std::uint8_t, 32> private_key) {
  Pkey k = private_pkey(private_key);
  X25519Public pub;
  std::size_t len = pub.size();
  if (EVP_PKEY_get_raw_public_key(k.get(), pub.data(), &len) != 1 || len != pub.size()) {
    std::abort();
  }
  return pub;
}

X25519KeyPair x25519_generate(Rng& rng) {
  X25519KeyPair kp;
  rng.fill(kp.private_key.span());
  kp.public_key = x25519_public(kp.private_key.span());
  return kp;
}

std::optional<Key32> x25519(std::span<const std::uint8_t, 32> private_key,
                            std::span<const std::uint8_t, 32> peer_public) {
  Pkey priv = private_pkey(private_key);
  Pkey peer(EVP_PKEY_new_raw_public_key(EVP_PKEY_X25519, nullptr, peer_public.data(), 32));
  if (!peer) return std::nullopt;
  PkeyCtx ctx(EVP_PKEY_CTX_new(priv.get(), nullptr));
  if (!ctx || EVP_PKEY_derive_init(ctx.get()) != 1 ||
      EVP_PKEY_derive_set_peer(ctx.get(), peer.get()) != 1) {
    return std::nullopt;
  }
  Key32 out;
  std::size_t len = out.size();
  // OpenSSL itself refuses an all-zero result (RFC 7748 §6.1); check again regardless.
  if (EVP_PKEY_derive(ctx.get(), out.data(), &len) != 1 || len != out.size()) return std::nullopt;
  if (ct_is_zero(out.span())) return std::nullopt;
  return out;
}

}  // namespace qeli::crypto
