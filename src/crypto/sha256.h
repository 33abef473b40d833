// SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104) over OpenSSL libcrypto.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <span>

namespace qeli::crypto {

inline constexpr std::size_t kSha256Size = 32;
using Digest32 = std::array<std::uint8_t, kSha256Size>;

/// SHA-256 of `data`.
Digest32 sha256(std::span<const std::uint8_t> data);

/// SHA-256 of the concatenation of `parts` (no copy).
Digest32 sha256(std::initializer_list<std::span<const std::uint8_t>> parts);

/// Incremental SHA-256 (e.g. a handshake transcript). `digest()` does not disturb the
/// running state, so a transcript can be hashed at several points.
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  Sha256(Sha256&& o) noexcept;
  Sha256& operator=(Sha256&& o) noexcept;

  void update(std::span<const std::uint8_t> data);
  Digest32 digest() const;

 private:
  void* ctx_;  // EVP_MD_CTX*
};

/// HMAC-SHA256(key, data), RFC 2104 / FIPS 198-1. Any key length.
Digest32 hmac_sha256(std::span<const std::uint8_t> key, std::span<const std::uint8_t> data);

}  // namespace qeli::crypto
