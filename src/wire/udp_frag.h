// UDP handshake fragments (0.7.16 `udp_frag.rs`; docs/PROTOCOL.md "UDP transport").
//
//   fragment = F0 9B 71 ‖ msg_id(1) ‖ idx(1) ‖ count(1) ‖ chunk
//
// Handshake messages larger than a datagram should carry (the ≥ 1200-byte ClientHello,
// the server flight, a large AUTH OK) are cut into chunks of at most kFragMaxChunk (1163)
// bytes; a receiver accepts chunks up to kFragMaxChunkAccept (1200) and at most
// kFragMaxCount (24) fragments per message. Data records are never fragmented: a datagram
// is either a fragment (magic F0 9B 71), a data record (17 03 03 …), or something else.
// Message ids are in wire/limits.h (udp_msg::).
//
// The same framing carries single-datagram messages: junk (msg 3), MTU probes (msg 4),
// their acks (msg 5) and our cookie challenge (msg 7) and echo (msg 8, wire/udp_cookie.h)
// are one fragment with idx 0 and count 1.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "base/bytes.h"
#include "base/clock.h"
#include "base/result.h"
#include "crypto/random.h"
#include "wire/limits.h"

namespace qeli::wire {

/// What a (de-enveloped, de-obfuscated) datagram is, judged by its first bytes only. A
/// kind other than kDataRecord/kHandshakeRecord/kOther means "F0 9B 71 and at least the
/// 6-byte header"; the fields are validated by parse_fragment.
enum class DatagramKind : std::uint8_t {
  kClientHelloFragment,   ///< msg 1
  kServerFlightFragment,  ///< msg 2
  kJunk,                  ///< msg 3: drop before any crypto
  kMtuProbe,              ///< msg 4
  kMtuProbeAck,           ///< msg 5
  kAuthOkFragment,        ///< msg 6
  kCookieChallenge,       ///< msg 7 (our extension, wire/udp_cookie.h)
  kCookieEcho,            ///< msg 8 (our extension)
  kUnknownFragment,       ///< F0 9B 71 with another msg id: drop
  kDataRecord,            ///< 17 03 03 (a Tls-framed PacketCodec record)
  kHandshakeRecord,       ///< 16 03 0x: an unfragmented (legacy) ClientHello
  kOther,                 ///< anything else, including a datagram shorter than a header
};
DatagramKind classify_datagram(ByteSpan datagram);
constexpr bool is_fragment(DatagramKind k) { return k <= DatagramKind::kUnknownFragment; }
const char* to_string(DatagramKind k);

/// Every reason a fragment or a reassembly is refused.
enum class FragError : std::uint8_t {
  kNotFragment,       ///< no F0 9B 71 magic or shorter than the 6-byte header
  kZeroCount,         ///< count == 0
  kTooManyFragments,  ///< count > kFragMaxCount
  kIndexOutOfRange,   ///< idx >= count
  kChunkTooLarge,     ///< chunk > kFragMaxChunkAccept
  kWrongMessage,      ///< a reassembler got another msg id than it collects
  kCountMismatch,     ///< count differs from earlier fragments of the message
  kChunkMismatch,     ///< same idx as an earlier fragment, different bytes
  kMessageTooLarge,   ///< fragmenter: more than kFragMaxCount chunks would be needed;
                      ///< reassembler: the message would exceed its max_message
  kEmptyMessage,      ///< fragmenter: nothing to send
  kBadChunkLimit,     ///< fragmenter: chunk limit 0 or > kFragMaxChunk
  kBadProbe,          ///< MTU probe/ack: not msg 4/5, or fewer than 4 payload bytes
  kBadCookie,         ///< cookie marker/challenge/echo: another kind, or not its exact size
};
const char* to_string(FragError e);

/// A parsed fragment; `chunk` points into the datagram.
struct Fragment {
  std::uint8_t msg_id = 0;
  std::uint8_t index = 0;
  std::uint8_t count = 0;
  ByteSpan chunk;
};

/// Validates the header (magic, 1 ≤ count ≤ 24, idx < count, chunk ≤ 1200 bytes).
Result<Fragment, FragError> parse_fragment(ByteSpan datagram);

/// Writes one fragment into `out` (kFragHeaderSize + chunk.size() bytes). Returns the
/// size written, or 0 if `out` is too small. Fields are not validated (our own values).
std::size_t write_fragment(std::uint8_t msg_id, std::uint8_t index, std::uint8_t count,
                           ByteSpan chunk, MutableByteSpan out);

/// Cuts `message` into ceil(len / chunk_limit) fragments, all chunks full except the
/// last. `chunk_limit` must be 1..kFragMaxChunk (a smaller value serves paths with a
/// smaller MTU). Refuses an empty message and one that needs more than 24 fragments.
Result<std::vector<Bytes>, FragError> fragment_message(std::uint8_t msg_id, ByteSpan message,
                                                       std::size_t chunk_limit = kFragMaxChunk);

/// Collects the fragments of one message id from one peer. Memory is bounded by
/// `max_message` bytes of chunks (plus the assembled copy); nothing is allocated before
/// the first valid fragment.
///
/// Rules (pinned by udp-frag.json where the vectors speak): fragments may arrive in any
/// order; an exact duplicate is ignored (kDuplicate); a fragment that contradicts the
/// message so far (another count, or another chunk at an index already held) discards the
/// partial message and starts a new one from that fragment, and add() reports
/// kCountMismatch/kChunkMismatch — the peer restarted, or someone injects, and either way
/// the old bytes cannot be trusted. A partial message older than kFragReassemblyTimeout
/// (10 s) from its first fragment is discarded when the next fragment arrives or at
/// expire().
class Reassembler {
 public:
  enum class Progress : std::uint8_t { kPartial, kComplete, kDuplicate };

  explicit Reassembler(std::uint8_t msg_id, std::size_t max_message = kFragMaxAcceptMessage);

  /// Adds one datagram. On kComplete, message() holds the whole message until the next
  /// add() or reset(), and the reassembler is ready for a new message.
  Result<Progress, FragError> add(ByteSpan datagram, Instant now);
  /// The message completed by the last add() (empty otherwise).
  ByteSpan message() const { return message_; }

  /// Discards a partial message whose deadline has passed. True if one was discarded.
  bool expire(Instant now);
  /// When the partial message expires (nullopt when idle).
  std::optional<Instant> deadline() const;
  void reset();
  /// Bytes currently held for a partial message (for memory accounting in tests).
  std::size_t held_bytes() const { return chunks_.size(); }

 private:
  void start(const Fragment& f, Instant now);
  std::uint8_t msg_id_;
  std::size_t max_message_;
  std::uint8_t count_ = 0;  // 0: idle
  std::uint8_t received_ = 0;
  Instant started_{};
  /// Chunk bytes in arrival order; offset_/len_ locate each index inside.
  Bytes chunks_;
  std::array<std::uint16_t, kFragMaxCount> offset_{};
  std::array<std::uint16_t, kFragMaxCount> len_{};
  std::array<bool, kFragMaxCount> have_{};
  Bytes message_;
};

// ---- MTU probes (msg 4) and acks (msg 5) ------------------------------------------------

struct MtuProbe {
  std::uint16_t id = 0;
  /// The outer (IP) packet size the prober is testing; echoed back in the ack.
  std::uint16_t outer_size = 0;
};

/// A probe datagram of exactly `datagram_size` bytes (header ‖ id LE ‖ outer_size LE ‖
/// random pad); `datagram_size` below kFragHeaderSize + 4 is raised to that minimum. The
/// probe may exceed kFragMaxChunkAccept: probes are never reassembled.
Bytes build_mtu_probe(const MtuProbe& p, std::size_t datagram_size, crypto::Rng& rng);
/// The ack: header ‖ id LE ‖ outer_size LE (10 bytes, no pad).
Bytes build_mtu_probe_ack(const MtuProbe& p);
/// Parses a probe (msg 4) or an ack (msg 5); `is_ack` says which. Pad bytes are ignored.
struct ParsedProbe {
  MtuProbe probe;
  bool is_ack = false;
};
Result<ParsedProbe, FragError> parse_mtu_probe(ByteSpan datagram);

/// One junk datagram (msg 3, idx 0, count 1) with `len` random chunk bytes, len clamped to
/// 1..kFragMaxChunk.
Bytes build_junk(std::size_t len, crypto::Rng& rng);

}  // namespace qeli::wire
