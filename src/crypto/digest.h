// SHA-256 and SHA-384 behind one algorithm tag, for code whose hash is negotiated (the
// TLS 1.3 cipher suite picks it: RFC 8446 §B.4). HMAC (RFC 2104) over the same tag.
// Fixed-size protocols keep using crypto/sha256.h.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace qeli::crypto {

enum class DigestAlgorithm : std::uint8_t { kSha256, kSha384 };

inline constexpr std::size_t kMaxDigestSize = 48;

/// Output size in bytes: 32 or 48.
constexpr std::size_t digest_size(DigestAlgorithm alg) {
  return alg == DigestAlgorithm::kSha384 ? 48 : 32;
}

/// A digest of up to kMaxDigestSize bytes; `span()` is its `size` leading bytes.
struct DigestValue {
  std::array<std::uint8_t, kMaxDigestSize> bytes{};
  std::size_t size = 0;
  std::span<const std::uint8_t> span() const { return {bytes.data(), size}; }
};

/// The hash of `data` under `alg`.
DigestValue digest(DigestAlgorithm alg, std::span<const std::uint8_t> data);

/// Incremental hash; `value()` does not disturb the running state (a transcript is hashed
/// at several points). Move-only.
class Digester {
 public:
  explicit Digester(DigestAlgorithm alg);
  ~Digester();
  Digester(const Digester&) = delete;
  Digester& operator=(const Digester&) = delete;
  Digester(Digester&& o) noexcept;
  Digester& operator=(Digester&& o) noexcept;

  DigestAlgorithm algorithm() const { return alg_; }
  void update(std::span<const std::uint8_t> data);
  DigestValue value() const;

 private:
  DigestAlgorithm alg_;
  void* ctx_;  // EVP_MD_CTX*
};

/// HMAC(key, data) under `alg`; any key length.
DigestValue hmac(DigestAlgorithm alg, std::span<const std::uint8_t> key,
                 std::span<const std::uint8_t> data);

}  // namespace qeli::crypto
