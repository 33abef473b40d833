// RecordAead: the AEAD of one direction's data records, ChaCha20-Poly1305 (0.7.16) and,
// with our AES-GCM extension (capability bit 5, docs/PROTOCOL.md §18), AES-256-GCM under
// a key derived from the ChaCha key (crypto::derive_aes256gcm_key), with the switch from
// one to the other in the middle of a session. The record layout, the nonce (the PRP of
// seed ‖ counter) and the counter stay as they are; the counter keeps counting.
//
// Sender: switch_send_to_aes() once; every record sealed after it is AES.
//
// Receiver: nothing on the wire says which AEAD a record took, so after accept_aes() a
// record is tried with the AEAD it most likely took (ChaCha until an AES record opened,
// then AES) and, if that tag fails, with the other one. Both are stream ciphers, so a
// failed in-place decryption is undone by encrypting the bytes again with the same key
// and nonce: no copy, and no cost at all for the record that opens at the first try.
// Which records the other AEAD may still open:
//   * stream carriers (in order): ChaCha only until the first AES record opened, then
//     AES only — a ChaCha record after it is refused;
//   * datagrams (reordered): after the first AES record, a ChaCha record only with a
//     counter below the lowest AES counter seen (the sender switched between them), and
//     only while the replay window still reaches below that counter (2048 records); then
//     AES only.
// Counter rules need the counter, which is inside the plaintext: open() says which AEAD
// opened, the codec reads the counter and asks admits() before the replay window and
// reports opened() after it.
//
// Nothing allocates after switch_send_to_aes() / accept_aes() (each creates the AES
// context once). One thread, like the codec that owns it.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "crypto/aead.h"
#include "crypto/secret_bytes.h"

namespace qeli::wire {

enum class RecordAeadKind : std::uint8_t { kChaCha20Poly1305, kAes256Gcm };
/// "chacha20-poly1305" / "aes-256-gcm".
const char* to_string(RecordAeadKind k);

class RecordAead {
 public:
  using Nonce = std::span<const std::uint8_t, crypto::kAeadNonceSize>;
  using Tag = std::span<std::uint8_t, crypto::kAeadTagSize>;
  using ConstTag = std::span<const std::uint8_t, crypto::kAeadTagSize>;

  /// `key`: the direction's 32-byte ChaCha20-Poly1305 key (the AES key derives from it).
  explicit RecordAead(std::span<const std::uint8_t, 32> key);

  // --- sender ---
  /// Seals with AES-256-GCM from now on (one way).
  void switch_send_to_aes();
  RecordAeadKind send_kind() const {
    return send_aes_ ? RecordAeadKind::kAes256Gcm : RecordAeadKind::kChaCha20Poly1305;
  }
  /// Encrypts `pt` in place and writes the tag; false only if the library fails.
  bool seal(Nonce nonce, std::span<std::uint8_t> pt, Tag tag);

  // --- receiver ---
  /// Takes AES-256-GCM records too, with the switch rules of a stream (`stream`) or of
  /// datagrams (above). Again before the first AES record: only changes the rules (the
  /// handshake enables it, the data plane, which knows its carrier, sets the rules).
  void accept_aes(bool stream);
  /// accept_aes() was called.
  bool accepts_aes() const { return state_ != RecvState::kChaCha; }
  /// ChaCha only again (the peer said it does not take AES); no effect once an AES record
  /// was taken.
  void refuse_aes() {
    if (!aes_seen_) state_ = RecvState::kChaCha;
  }
  /// Opens `pt` in place if either accepted AEAD authenticates it; which one, or nullopt
  /// (then `pt` is garbage).
  std::optional<RecordAeadKind> open(Nonce nonce, std::span<std::uint8_t> pt, ConstTag tag);
  /// May a record that `kind` opened, with this authenticated `counter`, be taken?
  bool admits(RecordAeadKind kind, std::uint64_t counter) const;
  /// The record was taken; `replay_top` is the replay window's top after it.
  void opened(RecordAeadKind kind, std::uint64_t counter, std::uint64_t replay_top);
  /// An AES record has been taken (the peer switched).
  bool aes_seen() const { return aes_seen_; }
  /// Only AES records are taken now.
  bool aes_only() const { return state_ == RecvState::kAes; }

 private:
  enum class RecvState : std::uint8_t { kChaCha, kBoth, kAes };
  bool try_open(crypto::Aead& a, Nonce nonce, std::span<std::uint8_t> pt, ConstTag tag);
  crypto::Aead& aes();

  crypto::Aead chacha_;
  crypto::Key32 aes_key_;
  std::optional<crypto::Aead> aes_;
  bool send_aes_ = false;
  RecvState state_ = RecvState::kChaCha;
  bool stream_ = true;
  bool aes_seen_ = false;
  std::uint64_t lowest_aes_ = 0;  // the lowest counter an AES record was taken with
};

}  // namespace qeli::wire
