// A continuous ChaCha20 keystream (RFC 8439 §2.4) for one direction of a TCP obfs stream:
// one (key, nonce), block counter starting at 0, consumed byte by byte across calls, so
// any split of the stream into writes or reads gives the same bytes. The 32-bit block
// counter bounds one direction to 2^32 blocks × 64 bytes = 256 GiB; a call that would run
// past it fails without touching the data (the connection must end and reconnect with a
// fresh nonce, never reuse keystream).
//
// Over OpenSSL's EVP_chacha20, which keeps the partial block between calls. A short call
// (under kAhead bytes: the 5-byte record headers of the header-only extension) takes its
// keystream from kAhead bytes generated ahead in one EVP call: a 5-byte EVP call costs
// ≈ 25 ns on this box (OpenSSL's one-block path), XORing 5 bytes from the buffer ≈ 2 ns.
// Long calls go straight through EVP, right after what the buffer holds. One object per
// direction; not thread-safe; no allocation per call; the buffer is wiped on destruction.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "crypto/chacha20.h"

namespace qeli::crypto {

/// 256 GiB: the keystream of one (key, nonce) with a 32-bit block counter.
inline constexpr std::uint64_t kChaCha20StreamLimit = std::uint64_t{1} << 38;

class ChaCha20Stream {
 public:
  ChaCha20Stream(std::span<const std::uint8_t, kChaCha20KeySize> key,
                 std::span<const std::uint8_t, kChaCha20NonceSize> nonce,
                 std::uint64_t limit = kChaCha20StreamLimit);
  ~ChaCha20Stream();
  ChaCha20Stream(const ChaCha20Stream&) = delete;
  ChaCha20Stream& operator=(const ChaCha20Stream&) = delete;

  /// XORs the next data.size() keystream bytes into `data`. False (data untouched) if
  /// that would pass the limit.
  [[nodiscard]] bool apply(std::span<std::uint8_t> data);
  /// Keystream bytes used so far.
  std::uint64_t position() const { return pos_; }

 private:
  static constexpr std::size_t kAhead = 256;

  /// XORs EVP's next data.size() keystream bytes into `data`.
  void evp_apply(std::span<std::uint8_t> data);

  void* ctx_;  // EVP_CIPHER_CTX*
  std::uint64_t pos_ = 0;
  std::uint64_t limit_;
  std::array<std::uint8_t, kAhead> ahead_{};  // keystream generated ahead of EVP's position
  std::size_t ahead_at_ = kAhead;             // its first unused byte
};

}  // namespace qeli::crypto
