#include "wire/reality_token.h"

#include <cstring>

#include "base/bytes.h"
#include "crypto/aead.h"
#include "crypto/hkdf.h"
#include "crypto/secret_bytes.h"

namespace qeli::wire {
namespace {

constexpr std::string_view kInfo = "qeli-reality-sid-v1";
constexpr std::size_t kPlainSize = kRealityShortIdSize + 8;
static_assert(kPlainSize + crypto::kAeadTagSize == kRealityTokenSize);

struct KeyIv {
  crypto::SecretBytes<44> okm;
  std::span<const std::uint8_t> key() const {
    return std::span<const std::uint8_t>(okm.span()).first(32);
  }
  std::span<const std::uint8_t, 12> iv() const {
    return std::span<const std::uint8_t, 12>(okm.span().data() + 32, 12);
  }
};

KeyIv derive(std::span<const std::uint8_t, 32> shared) {
  KeyIv k;
  const auto prk = crypto::hkdf_extract({}, shared);
  (void)crypto::hkdf_expand(prk.span(), as_bytes(kInfo), k.okm.span());
  return k;
}

}  // namespace

RealityToken seal_reality_token(std::span<const std::uint8_t, 32> shared,
                                const RealityShortId& short_id, std::uint64_t unix_secs) {
  const KeyIv k = derive(shared);
  RealityToken t{};
  std::memcpy(t.data(), short_id.data(), short_id.size());
  for (int i = 0; i < 8; ++i) {
    t[kRealityShortIdSize + static_cast<std::size_t>(i)] =
        static_cast<std::uint8_t>(unix_secs >> (8 * i));  // little-endian (0.7.16)
  }
  crypto::Aead aead(crypto::AeadAlgorithm::kChaCha20Poly1305, k.key());
  (void)aead.seal(k.iv(), {}, std::span<std::uint8_t>(t.data(), kPlainSize),
                  std::span<std::uint8_t, 16>(t.data() + kPlainSize, 16));
  return t;
}

std::optional<RealityTokenContents> open_reality_token(std::span<const std::uint8_t, 32> shared,
                                                       std::span<const std::uint8_t, 32> token) {
  const KeyIv k = derive(shared);
  RealityToken t{};
  std::memcpy(t.data(), token.data(), t.size());
  crypto::Aead aead(crypto::AeadAlgorithm::kChaCha20Poly1305, k.key());
  if (!aead.open(k.iv(), {}, std::span<std::uint8_t>(t.data(), kPlainSize),
                 std::span<const std::uint8_t, 16>(t.data() + kPlainSize, 16))) {
    return std::nullopt;
  }
  RealityTokenContents c;
  std::memcpy(c.short_id.data(), t.data(), c.short_id.size());
  for (int i = 7; i >= 0; --i) {
    c.unix_secs = (c.unix_secs << 8) | t[kRealityShortIdSize + static_cast<std::size_t>(i)];
  }
  return c;
}

}  // namespace qeli::wire
