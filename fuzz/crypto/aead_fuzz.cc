// Fuzzes Aead::open() with hostile records and checks the invariants that matter on the
// data path: open of anything not produced by seal fails (never crashes, never "succeeds"
// by accident), and seal → open round-trips the same bytes for every algorithm.
//
// Input: alg(1) ‖ nonce(12) ‖ tag(16) ‖ aad_len(1) ‖ aad ‖ ciphertext.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "crypto/aead.h"

using qeli::crypto::Aead;
using qeli::crypto::AeadAlgorithm;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  constexpr std::size_t kHead = 1 + 12 + 16 + 1;
  if (size < kHead) return 0;
  const AeadAlgorithm alg = data[0] % 3 == 0   ? AeadAlgorithm::kChaCha20Poly1305
                            : data[0] % 3 == 1 ? AeadAlgorithm::kAes128Gcm
                                               : AeadAlgorithm::kAes256Gcm;
  std::array<std::uint8_t, 12> nonce;
  std::array<std::uint8_t, 16> tag;
  std::memcpy(nonce.data(), data + 1, 12);
  std::memcpy(tag.data(), data + 13, 16);
  const std::size_t aad_len = data[29];
  if (size < kHead + aad_len) return 0;
  const std::uint8_t* aad = data + kHead;
  std::vector<std::uint8_t> body(data + kHead + aad_len, data + size);

  static const std::array<std::uint8_t, 32> kKey = {0x42, 1, 2, 3};
  Aead a(alg, std::span<const std::uint8_t>(kKey.data(), qeli::crypto::aead_key_size(alg)));

  // A forged record must not authenticate (2^-128 per try; a hit means a broken gate).
  std::vector<std::uint8_t> forged = body;
  if (a.open(nonce, {aad, aad_len}, forged, tag)) std::abort();

  // Round trip: seal the bytes as plaintext, open them, get them back.
  std::vector<std::uint8_t> buf = body;
  std::array<std::uint8_t, 16> t2{};
  if (!a.seal(nonce, {aad, aad_len}, buf, t2)) std::abort();
  if (!a.open(nonce, {aad, aad_len}, buf, t2)) std::abort();
  if (buf != body) std::abort();
  return 0;
}
