#include "wire/udp_obfs.h"

#include <cstdlib>
#include <cstring>

#include "crypto/chacha20.h"
#include "crypto/sha256.h"

namespace qeli::wire {

namespace {
constexpr std::string_view kObfsKeyLabel = "qeli-obfs-key-v1";
static_assert(kObfsSealSize == 1 + crypto::kChaCha20NonceSize);

void xor_payload(const crypto::Key32& key, const std::uint8_t* nonce, MutableByteSpan payload) {
  crypto::chacha20_xor(key.span(), std::span<const std::uint8_t, 12>(nonce, 12), 0, payload);
}
}  // namespace

crypto::Key32 derive_obfs_key(std::string_view psk) {
  crypto::Digest32 d = crypto::sha256({as_bytes(kObfsKeyLabel), as_bytes(psk)});
  crypto::Key32 k{std::span<const std::uint8_t, 32>(d)};
  crypto::secure_wipe(d.data(), d.size());
  return k;
}

void obfs_seal(const crypto::Key32& key, const std::array<std::uint8_t, 12>& nonce,
               std::uint8_t flag_random, MutableByteSpan datagram) {
  if (datagram.size() < kObfsSealSize) std::abort();
  datagram[0] = static_cast<std::uint8_t>(kObfsFlagBase | (flag_random & kObfsFlagRandomMask));
  std::memcpy(datagram.data() + 1, nonce.data(), nonce.size());
  xor_payload(key, nonce.data(), datagram.subspan(kObfsSealSize));
}

void obfs_seal(const crypto::Key32& key, MutableByteSpan datagram, crypto::Rng& rng) {
  std::array<std::uint8_t, 13> r{};
  rng.fill(r);
  std::array<std::uint8_t, 12> nonce{};
  std::memcpy(nonce.data(), r.data() + 1, nonce.size());
  obfs_seal(key, nonce, r[0], datagram);
}

const char* to_string(ObfsError e) {
  switch (e) {
    case ObfsError::kTooShort: return "obfs datagram shorter than 13 bytes";
    case ObfsError::kBadFlag: return "obfs flag is not 0x40|x";
  }
  return "?";
}

Result<MutableByteSpan, ObfsError> obfs_open(const crypto::Key32& key, MutableByteSpan datagram) {
  if (datagram.size() < kObfsSealSize) return fail(ObfsError::kTooShort);
  if ((datagram[0] & ~kObfsFlagRandomMask) != kObfsFlagBase) return fail(ObfsError::kBadFlag);
  const MutableByteSpan payload = datagram.subspan(kObfsSealSize);
  xor_payload(key, datagram.data() + 1, payload);
  return payload;
}

}  // namespace qeli::wire
