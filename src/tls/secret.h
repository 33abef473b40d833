// Secret: a TLS 1.3 secret of the suite's hash length (32 or 48 bytes), wiped on
// destruction and move (crypto::SecretBytes). Copies are explicit (clone()).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <span>

#include "crypto/digest.h"
#include "crypto/secret_bytes.h"

namespace qeli::tls {

class Secret {
 public:
  Secret() = default;
  /// A secret of `n` (≤ 48) bytes copied from `bytes`.
  explicit Secret(std::span<const std::uint8_t> bytes) : size_(bytes.size()) {
    if (size_ > crypto::kMaxDigestSize) std::abort();
    if (size_ != 0) std::memcpy(bytes_.data(), bytes.data(), size_);
  }
  /// An all-zero secret of `n` bytes (the space a derivation writes into).
  static Secret zeros(std::size_t n) {
    Secret s;
    if (n > crypto::kMaxDigestSize) std::abort();
    s.size_ = n;
    return s;
  }
  Secret(Secret&&) noexcept = default;
  Secret& operator=(Secret&&) noexcept = default;
  Secret clone() const { return Secret(span()); }

  std::size_t size() const { return size_; }
  std::span<const std::uint8_t> span() const { return {bytes_.data(), size_}; }
  std::span<std::uint8_t> mutable_span() { return {bytes_.data(), size_}; }

 private:
  crypto::SecretBytes<crypto::kMaxDigestSize> bytes_;
  std::size_t size_ = 0;
};

}  // namespace qeli::tls
