// SecretBytes<N>: a fixed-size buffer for key material that wipes itself.
//
// The bytes are cleared with OPENSSL_cleanse (which the optimiser cannot elide) on
// destruction, on move-from and on reassignment. Copying is explicit (`clone()`), so
// a secret is never duplicated by accident.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace qeli::crypto {

void secure_wipe(void* p, std::size_t n);

template <std::size_t N>
class SecretBytes {
 public:
  static constexpr std::size_t kSize = N;

  SecretBytes() { bytes_.fill(0); }
  explicit SecretBytes(std::span<const std::uint8_t, N> src) {
    for (std::size_t i = 0; i < N; ++i) bytes_[i] = src[i];
  }
  ~SecretBytes() { secure_wipe(bytes_.data(), N); }

  SecretBytes(const SecretBytes&) = delete;
  SecretBytes& operator=(const SecretBytes&) = delete;
  SecretBytes(SecretBytes&& o) noexcept : bytes_(o.bytes_) { secure_wipe(o.bytes_.data(), N); }
  SecretBytes& operator=(SecretBytes&& o) noexcept {
    if (this != &o) {
      bytes_ = o.bytes_;
      secure_wipe(o.bytes_.data(), N);
    }
    return *this;
  }

  SecretBytes clone() const {
    SecretBytes c;
    c.bytes_ = bytes_;
    return c;
  }

  std::uint8_t* data() { return bytes_.data(); }
  const std::uint8_t* data() const { return bytes_.data(); }
  static constexpr std::size_t size() { return N; }
  std::span<std::uint8_t, N> span() { return std::span<std::uint8_t, N>(bytes_); }
  std::span<const std::uint8_t, N> span() const { return std::span<const std::uint8_t, N>(bytes_); }
  std::uint8_t& operator[](std::size_t i) { return bytes_[i]; }
  const std::uint8_t& operator[](std::size_t i) const { return bytes_[i]; }

 private:
  std::array<std::uint8_t, N> bytes_;
};

using Key32 = SecretBytes<32>;

}  // namespace qeli::crypto
