#include "wire/record_aead.h"

#include <array>

#include "crypto/data_keys.h"
#include "crypto/replay_window.h"

namespace qeli::wire {

const char* to_string(RecordAeadKind k) {
  switch (k) {
    case RecordAeadKind::kChaCha20Poly1305: return "chacha20-poly1305";
    case RecordAeadKind::kAes256Gcm: return "aes-256-gcm";
  }
  return "?";
}

RecordAead::RecordAead(std::span<const std::uint8_t, 32> key)
    : chacha_(crypto::AeadAlgorithm::kChaCha20Poly1305, key),
      aes_key_(crypto::derive_aes256gcm_key(key)) {}

crypto::Aead& RecordAead::aes() {
  if (!aes_) aes_.emplace(crypto::AeadAlgorithm::kAes256Gcm, aes_key_.span());
  return *aes_;
}

void RecordAead::switch_send_to_aes() {
  (void)aes();
  send_aes_ = true;
}

bool RecordAead::seal(Nonce nonce, std::span<std::uint8_t> pt, Tag tag) {
  crypto::Aead& a = send_aes_ ? *aes_ : chacha_;
  return a.seal(nonce, {}, pt, tag);
}

void RecordAead::accept_aes(bool stream) {
  if (state_ == RecvState::kAes || aes_seen_) return;
  (void)aes();
  stream_ = stream;
  state_ = RecvState::kBoth;
}

bool RecordAead::try_open(crypto::Aead& a, Nonce nonce, std::span<std::uint8_t> pt, ConstTag tag) {
  return a.open(nonce, {}, pt, tag);
}

std::optional<RecordAeadKind> RecordAead::open(Nonce nonce, std::span<std::uint8_t> pt,
                                               ConstTag tag) {
  using K = RecordAeadKind;
  switch (state_) {
    case RecvState::kChaCha:
      return try_open(chacha_, nonce, pt, tag) ? std::optional(K::kChaCha20Poly1305) : std::nullopt;
    case RecvState::kAes:
      return try_open(*aes_, nonce, pt, tag) ? std::optional(K::kAes256Gcm) : std::nullopt;
    case RecvState::kBoth: break;
  }
  // The likelier AEAD first: ChaCha until the peer's first AES record, AES after it.
  const K first = aes_seen_ ? K::kAes256Gcm : K::kChaCha20Poly1305;
  crypto::Aead& a = first == K::kAes256Gcm ? *aes_ : chacha_;
  crypto::Aead& b = first == K::kAes256Gcm ? chacha_ : *aes_;
  if (try_open(a, nonce, pt, tag)) return first;
  // `pt` now holds ciphertext ⊕ a's keystream: encrypting again under a restores it (both
  // are counter-mode stream ciphers; the recomputed tag is thrown away).
  std::array<std::uint8_t, crypto::kAeadTagSize> scratch{};
  if (!a.seal(nonce, {}, pt, scratch)) return std::nullopt;
  if (try_open(b, nonce, pt, tag)) {
    return first == K::kAes256Gcm ? K::kChaCha20Poly1305 : K::kAes256Gcm;
  }
  return std::nullopt;
}

bool RecordAead::admits(RecordAeadKind kind, std::uint64_t counter) const {
  if (kind == RecordAeadKind::kAes256Gcm || state_ != RecvState::kBoth || !aes_seen_) return true;
  // A ChaCha record after an AES one: on a stream never; on datagrams only one the peer
  // sealed before it switched (a lower counter than any of its AES records).
  return !stream_ && counter < lowest_aes_;
}

void RecordAead::opened(RecordAeadKind kind, std::uint64_t counter, std::uint64_t replay_top) {
  if (state_ != RecvState::kBoth) return;
  if (kind == RecordAeadKind::kAes256Gcm) {
    if (!aes_seen_ || counter < lowest_aes_) lowest_aes_ = counter;
    aes_seen_ = true;
    if (stream_) state_ = RecvState::kAes;
  }
  // Once the replay window no longer reaches below the lowest AES counter, no ChaCha
  // record could pass it any more: AES only.
  if (aes_seen_ && replay_top - lowest_aes_ >= crypto::ReplayWindow::kWindowSize - 1) {
    state_ = RecvState::kAes;
  }
}

}  // namespace qeli::wire
