#include "wire/udp_obfs.h"

#include <cstdlib>
#include <cstring>

#include "crypto/sha256.h"

namespace qeli::wire {

namespace {
constexpr std::string_view kObfsKeyLabel = "qeli-obfs-key-v1";
static_assert(kObfsSealSize == 1 + crypto::kChaCha20NonceSize);
}  // namespace

crypto::Key32 derive_obfs_key(std::string_view psk) {
  crypto::Digest32 d = crypto::sha256({as_bytes(kObfsKeyLabel), as_bytes(psk)});
  crypto::Key32 k{std::span<const std::uint8_t, 32>(d)};
  crypto::secure_wipe(d.data(), d.size());
  return k;
}

void UdpObfs::seal(const std::array<std::uint8_t, 12>& nonce, std::uint8_t flag_random,
                   MutableByteSpan datagram) {
  if (datagram.size() < kObfsSealSize) std::abort();
  datagram[0] = static_cast<std::uint8_t>(kObfsFlagBase | (flag_random & kObfsFlagRandomMask));
  std::memcpy(datagram.data() + 1, nonce.data(), nonce.size());
  // Block counter 0: see the header (the reference does not name it).
  cipher_.xor_in_place(nonce, 0, datagram.subspan(kObfsSealSize));
}

void UdpObfs::seal(MutableByteSpan datagram, crypto::Rng& rng) {
  std::array<std::uint8_t, 13> r{};
  rng.fill(r);
  std::array<std::uint8_t, 12> nonce{};
  std::memcpy(nonce.data(), r.data() + 1, nonce.size());
  seal(nonce, r[0], datagram);
}

const char* to_string(ObfsError e) {
  switch (e) {
    case ObfsError::kTooShort: return "obfs datagram shorter than 13 bytes";
    case ObfsError::kBadFlag: return "obfs flag is not 0x40|x";
  }
  return "?";
}

Result<MutableByteSpan, ObfsError> UdpObfs::open(MutableByteSpan datagram) {
  if (datagram.size() < kObfsSealSize) return fail(ObfsError::kTooShort);
  if ((datagram[0] & ~kObfsFlagRandomMask) != kObfsFlagBase) return fail(ObfsError::kBadFlag);
  const MutableByteSpan payload = datagram.subspan(kObfsSealSize);
  cipher_.xor_in_place(std::span<const std::uint8_t, 12>(datagram.data() + 1, 12), 0, payload);
  return payload;
}

}  // namespace qeli::wire
