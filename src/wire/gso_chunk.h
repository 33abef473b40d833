// GSO chunk frames — our extension (capability bit handshake::caps::kGsoSuperPackets),
// used only when both ends advertised it; a 0.7.16 peer never sees one.
// docs/PROTOCOL.md "Extension: GSO super-packets".
//
// A TCP/UDP "super-packet" from the TUN (one IP + L4 header and up to 64 KiB of payload,
// with the kernel's segmentation metadata) crosses the tunnel WHOLE, so neither end
// splits it into MTU-sized packets. It is cut into chunks that each fit one ordinary data
// record (the record limits of every mode still hold; TLS-shaped modes keep TLS-sized
// records). Each chunk's record plaintext is a control frame followed by chunk bytes:
//
//   C1 9B 41 0E ‖ gso_type(1) ‖ flags(1) ‖ gso_size(2) ‖ hdr_len(2) ‖ csum_start(2)
//               ‖ csum_offset(2) ‖ total_len(2) ‖ offset(2) ‖ chunk bytes
//
// (big-endian). gso_type: 0 none, 1 tcp4, 2 tcp6, 3 udp4, 4 udp6; flags bit 0 = the L4
// checksum is partial (NEEDS_CSUM). Chunks of one super-packet are sent back to back in
// order (offset 0 first, contiguous, ending at total_len); over a TCP carrier they arrive
// in that order. The receiver reassembles, RE-VALIDATES the metadata against the packet
// (it is hostile input like any other) and writes it to its TUN as one GSO packet.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "base/bytes.h"
#include "wire/limits.h"

namespace qeli::wire {

inline constexpr std::uint8_t kCtrlGsoChunk = 0x41;
inline constexpr std::size_t kGsoChunkBody = 14;
inline constexpr std::size_t kGsoChunkPrefix = kCtrlHeaderSize + kGsoChunkBody;  // 18
/// Largest chunk payload per record.
inline constexpr std::size_t kMaxGsoChunk = kMaxTunnelMtu - kGsoChunkPrefix;
inline constexpr std::size_t kMaxSuperPacket = 65535;

struct GsoChunkHeader {
  std::uint8_t gso_type = 0;
  bool needs_csum = false;
  std::uint16_t gso_size = 0;
  std::uint16_t hdr_len = 0;
  std::uint16_t csum_start = 0;
  std::uint16_t csum_offset = 0;
  std::uint16_t total_len = 0;  ///< bytes of the whole super-packet
  std::uint16_t offset = 0;     ///< where this chunk starts in it
};

/// Writes the 18-byte prefix into `out` (which must hold kGsoChunkPrefix bytes).
void write_gso_chunk_prefix(const GsoChunkHeader& h, std::uint8_t* out);

struct GsoChunk {
  GsoChunkHeader header;
  ByteSpan data;  ///< the chunk bytes (points into the plaintext)
};

/// Parses a record plaintext that starts with a kCtrlGsoChunk control frame. nullopt if
/// it is not one, or if the fields are inconsistent (gso_type > 4, total_len 0, the chunk
/// running past total_len, an empty chunk).
std::optional<GsoChunk> parse_gso_chunk(ByteSpan plaintext);

/// Reassembles the chunks of one super-packet at a time, in order. Owns a 64 KiB buffer.
class GsoAssembler {
 public:
  enum class Result { kPartial, kComplete, kError };
  GsoAssembler();
  /// Adds a chunk. kComplete: packet() holds the whole super-packet and header() its
  /// metadata until the next add(). kError: out-of-order or inconsistent chunk — the
  /// partial packet is discarded (the caller counts the drop; the stream stays usable).
  Result add(const GsoChunk& chunk);
  ByteSpan packet() const { return {buf_.data(), filled_}; }
  const GsoChunkHeader& header() const { return current_; }
  bool in_progress() const { return filled_ > 0 && filled_ < current_.total_len; }

 private:
  Bytes buf_;
  GsoChunkHeader current_{};
  std::size_t filled_ = 0;
};

}  // namespace qeli::wire
