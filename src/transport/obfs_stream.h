// ObfsXorStream: TCP obfs's data phase as a transport::Stream layer (qeli 0.7.16
// `obfs.rs`; docs/PROTOCOL.md "obfs stream"). Every byte in each direction is XORed with
// one continuous ChaCha20 keystream: send = ChaCha20(obfs_key, our nonce), receive =
// ChaCha20(obfs_key, the peer's nonce), block counter from 0, over the whole stream
// whatever the write and read splits. No integrity (the inner AEAD records have it).
//
// Our extension (capability bit handshake::caps::kObfsHeaderXor; docs/PROTOCOL.md §17):
// between two of ours the records' bodies — AEAD ciphertext, already indistinguishable
// from random — skip the keystream, and only each record's 5-byte header is XORed. The
// stream looks the same to an observer and the second cipher pass over every byte goes.
// The switch is in-band: the first record of a direction sent that way carries the type
// byte 0x18 instead of 0x17 under the keystream (the receiver restores 0x17); its body and
// every later body skip the keystream. The client starts it once the handshake negotiated
// the bit (begin_header_only()); the server follows when it sees the client's switch. An
// end built without the extension (or with extensions disabled) never walks the records
// and treats 0x18 as any unknown record type: the inner codec refuses it.
//
// In place and without overhead: write() XORs each chunk where it lies and passes the
// same chunks down (to a WebSocketStream or the TcpStream); read() XORs what the layer
// below delivered into `out`. A direction ends after 256 GiB (kError: the keystream of
// one nonce must never repeat; the client reconnects with fresh nonces).
//
// One writer and one reader thread: each owns its own keystream and record walker;
// begin_header_only() and the server's follow-up cross threads through one atomic.
#pragma once

#include <array>
#include <atomic>
#include <memory>
#include <string>

#include "crypto/chacha20_stream.h"
#include "crypto/secret_bytes.h"
#include "transport/stream.h"

namespace qeli::transport {

using ObfsNonce = std::array<std::uint8_t, 12>;

/// Where one direction of the obfs stream stands in the TLS-framed records it carries
/// (5-byte header `type ‖ 03 0x ‖ u16 len`, then `len` bytes), and which bytes take the
/// keystream. Exposed for its unit test; ObfsXorStream owns two.
class ObfsRecordWalker {
 public:
  enum class Mode : std::uint8_t {
    kUntracked,   ///< every byte XORed, records not followed (0.7.16; lost track)
    kEveryByte,   ///< every byte XORed, records followed (a switch may come)
    kHeadersOnly  ///< only header bytes XORed (after the switch)
  };
  static constexpr std::uint8_t kDataType = 0x17;
  static constexpr std::uint8_t kSwitchType = 0x18;

  explicit ObfsRecordWalker(bool track) : mode_(track ? Mode::kEveryByte : Mode::kUntracked) {}

  /// Sending: `data` is plaintext in stream order; XORs what must be XORed. With
  /// `switch_now`, the next data record (type 0x17) starting here becomes the switch
  /// record; returns true once it has. False from apply() = keystream exhausted.
  bool seal(crypto::ChaCha20Stream& ks, std::span<std::uint8_t> data, bool switch_now,
            bool& switched);
  /// Receiving: `data` is stream bytes in order; XORs what must be XORed. `accept_switch`
  /// false: a 0x18 record is left as is. `switched` is set when the peer's switch record
  /// header went by (restored to 0x17).
  bool open(crypto::ChaCha20Stream& ks, std::span<std::uint8_t> data, bool accept_switch,
            bool& switched);

  Mode mode() const { return mode_; }

 private:
  bool walk(crypto::ChaCha20Stream& ks, std::span<std::uint8_t> data, bool sealing,
            bool allow_switch, bool& switched);
  void header_done();

  Mode mode_;
  bool switching_ = false;             // this record's header is the switch; its body skips
  std::array<std::uint8_t, 5> hdr_{};  // the current header, plaintext
  std::size_t in_header_ = 0;          // header bytes seen (0..5)
  std::size_t body_left_ = 0;          // body bytes left in the current record
};

class ObfsXorStream final : public StreamLayer {
 public:
  /// Over `lower` (owned). `leftover`: stream bytes (still XORed) the set-up read past
  /// the nonce; they are returned first. `limit`: keystream bytes per direction (tests).
  /// `header_xor`: this end speaks the header-only extension (follows the records so a
  /// peer's switch is understood); false = exactly 0.7.16.
  ObfsXorStream(std::unique_ptr<Stream> lower, const crypto::Key32& key,
                const ObfsNonce& send_nonce, const ObfsNonce& recv_nonce, Bytes leftover = {},
                std::uint64_t limit = crypto::kChaCha20StreamLimit, bool header_xor = false);

  Overhead overhead() const override { return lower_->overhead(); }
  StreamStatus write(std::span<MutableByteSpan> chunks) override;
  ReadResult read(MutableByteSpan out) override;
  std::string failure() const override;

  /// Client, after a handshake that negotiated caps::kObfsHeaderXor: the next data record
  /// sent is the switch. Thread-safe. No effect unless constructed with `header_xor`.
  void begin_header_only();
  /// This end sent its switch record / saw the peer's. Thread-safe.
  bool sent_switch() const { return sent_switch_.load(std::memory_order_acquire); }
  bool saw_switch() const { return saw_switch_.load(std::memory_order_acquire); }

  std::uint64_t sent_bytes() const { return send_.position(); }
  std::uint64_t received_bytes() const { return recv_.position(); }

 private:
  crypto::ChaCha20Stream send_;
  crypto::ChaCha20Stream recv_;
  ObfsRecordWalker send_walker_;
  ObfsRecordWalker recv_walker_;
  bool header_xor_;
  std::atomic<bool> switch_requested_{false};
  std::atomic<bool> sent_switch_{false};
  std::atomic<bool> saw_switch_{false};
  Bytes leftover_;
  std::size_t leftover_at_ = 0;
  bool send_exhausted_ = false;
  bool recv_exhausted_ = false;
};

}  // namespace qeli::transport
