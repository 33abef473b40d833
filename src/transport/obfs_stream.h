// ObfsXorStream: TCP obfs's data phase as a transport::Stream layer (qeli 0.7.16
// `obfs.rs`; docs/PROTOCOL.md "obfs stream"). Every byte in each direction is XORed with
// one continuous ChaCha20 keystream: send = ChaCha20(obfs_key, our nonce), receive =
// ChaCha20(obfs_key, the peer's nonce), block counter from 0, over the whole stream
// whatever the write and read splits. No integrity (the inner AEAD records have it).
//
// In place and without overhead: write() XORs each chunk where it lies and passes the
// same chunks down (to a WebSocketStream or the TcpStream); read() XORs what the layer
// below delivered into `out`. A direction ends after 256 GiB (kError: the keystream of
// one nonce must never repeat; the client reconnects with fresh nonces).
//
// One writer and one reader thread: each owns its own keystream.
#pragma once

#include <array>
#include <memory>
#include <string>

#include "crypto/chacha20_stream.h"
#include "crypto/secret_bytes.h"
#include "transport/stream.h"

namespace qeli::transport {

using ObfsNonce = std::array<std::uint8_t, 12>;

class ObfsXorStream final : public StreamLayer {
 public:
  /// Over `lower` (owned). `leftover`: stream bytes (still XORed) the set-up read past
  /// the nonce; they are returned first. `limit`: keystream bytes per direction (tests).
  ObfsXorStream(std::unique_ptr<Stream> lower, const crypto::Key32& key,
                const ObfsNonce& send_nonce, const ObfsNonce& recv_nonce, Bytes leftover = {},
                std::uint64_t limit = crypto::kChaCha20StreamLimit);

  Overhead overhead() const override { return lower_->overhead(); }
  StreamStatus write(std::span<MutableByteSpan> chunks) override;
  ReadResult read(MutableByteSpan out) override;
  std::string failure() const override;

  std::uint64_t sent_bytes() const { return send_.position(); }
  std::uint64_t received_bytes() const { return recv_.position(); }

 private:
  crypto::ChaCha20Stream send_;
  crypto::ChaCha20Stream recv_;
  Bytes leftover_;
  std::size_t leftover_at_ = 0;
  bool send_exhausted_ = false;
  bool recv_exhausted_ = false;
};

}  // namespace qeli::transport
