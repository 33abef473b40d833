// UDP segmentation offload on send (UDP_SEGMENT) and receive offload (UDP_GRO) as pure
// functions over caller-owned arrays, so the rules are table-tested without a socket
// (reference/tun-offload.md §3.2-3.4; checklist gso-gro.md cases 33-35).
//
// Send: consecutive datagrams to the same destination are planned into one message when
// every datagram but the last has the first one's size (the last may be shorter, and a
// shorter one ends the message); the kernel cuts the message back into datagrams at
// gso_size boundaries. A one-datagram message carries no cmsg.
// Receive: one read of a UDP_GRO socket can hold many datagrams of gso_size bytes (the
// last may be shorter); split_gro() copies them into consecutive slots from the front.
#pragma once

#include <sys/socket.h>

#include <cstddef>
#include <cstdint>
#include <span>

#include "transport/sock_addr.h"

namespace qeli::transport {

// Socket option level and names (include/uapi/linux/udp.h); spelled out because older
// libc headers lack them.
inline constexpr int kSolUdp = 17;
inline constexpr int kUdpSegment = 103;
inline constexpr int kUdpGro = 104;

/// Datagrams per GSO message: the kernel takes 128 since 6.9 but only 64 before (and
/// UDP_GRO_CNT_MAX is 64), so 64 works everywhere.
inline constexpr std::size_t kMaxGsoSegments = 64;
/// Largest UDP payload of one message: 65535 - IPv4 header (20) - UDP header (8), and
/// 65535 - UDP header for IPv6 (its payload length excludes the 40-byte header).
inline constexpr std::size_t kMaxUdpPayloadV4 = 65507;
inline constexpr std::size_t kMaxUdpPayloadV6 = 65527;
/// A GRO read can be this large: every receive buffer handed to the kernel with UDP_GRO
/// on must hold it, or the read is truncated.
inline constexpr std::size_t kGroReadSize = 65535;
/// With UDP_GRO on, recvmmsg fills only the last kGroRecvSlots slots and split_gro()
/// spreads them over the head: 2 reads x 64 segments = 128 slots.
inline constexpr std::size_t kGroRecvSlots = 2;

/// One datagram to send: `len` bytes at `data` (caller-owned, valid for the call) to `to`.
struct OutDatagram {
  const std::uint8_t* data = nullptr;
  std::size_t len = 0;
  const SockAddr* to = nullptr;
};

struct GsoLimits {
  std::size_t max_segments = kMaxGsoSegments;
  /// Extra cap on a message's bytes (the family limit above always applies too).
  std::size_t max_bytes = kMaxUdpPayloadV6;
};

/// A planned message: datagrams [first, first + count) of the input, `bytes` in total.
/// gso_size == 0: a single datagram, no UDP_SEGMENT cmsg.
struct GsoMessage {
  std::size_t first = 0;
  std::size_t count = 0;
  std::size_t bytes = 0;
  std::uint16_t gso_size = 0;
};

struct GsoPlan {
  std::size_t messages = 0;   ///< entries written to `out`
  std::size_t datagrams = 0;  ///< input datagrams they cover (a prefix of `in`)
};

/// Plans `in` into messages (see the header comment). `gso` false: one message per
/// datagram. Stops when `out` is full; the uncovered suffix is planned by a later call.
/// A datagram longer than the family limit gets its own message (the kernel answers
/// EMSGSIZE for it, which the caller reports).
GsoPlan plan_gso(std::span<const OutDatagram> in, bool gso, const GsoLimits& limits,
                 std::span<GsoMessage> out);

/// Bytes of control buffer needed for one UDP_SEGMENT cmsg: CMSG_SPACE(2).
std::size_t segment_cmsg_space();
/// Writes a SOL_UDP/UDP_SEGMENT cmsg carrying `gso_size` as a u16 (the kernel refuses any
/// other length with EINVAL) at the start of `control` (>= segment_cmsg_space() bytes,
/// aligned for cmsghdr). Returns the msg_controllen to use.
std::size_t write_segment_cmsg(std::uint8_t* control, std::uint16_t gso_size);

/// The gso_size of a received message from its control data: the SOL_UDP/UDP_GRO cmsg,
/// whose payload the kernel writes as a 4-byte int (a 2-byte payload is read as u16).
/// 0 if absent or malformed (= not coalesced).
std::size_t parse_gro_size(const msghdr& msg);

/// One receive slot: caller-owned memory `data` of `capacity` bytes. Filled by a receive:
/// `len` bytes from `from`, `gso_size` (0 = one datagram), `truncated` if the kernel had
/// more bytes than `capacity` (MSG_TRUNC: the datagram is incomplete and must be dropped).
struct RecvSlot {
  /// An empty slot over `capacity` bytes at `data` (capacity must fit 32 bits).
  static RecvSlot over(std::uint8_t* data, std::size_t capacity) {
    RecvSlot s;
    s.data = data;
    s.capacity = static_cast<std::uint32_t>(capacity);
    return s;
  }
  std::uint8_t* data = nullptr;
  std::uint32_t capacity = 0;
  std::uint32_t len = 0;
  std::uint16_t gso_size = 0;
  bool truncated = false;
  SockAddr from;
};

enum class SplitError : std::uint8_t {
  kOverflow,      ///< a split would overwrite a read not yet split
  kSlotTooSmall,  ///< a datagram does not fit the slot it must be copied to
};
const char* to_string(SplitError e);

struct SplitResult {
  std::size_t datagrams = 0;  ///< datagrams now in slots [0, datagrams)
  std::size_t truncated = 0;  ///< reads dropped because the kernel truncated them
  bool ok = true;             ///< false: stopped early with `error`
  SplitError error = SplitError::kOverflow;
};

/// Splits the reads in slots [first, first + filled) into single datagrams in slots
/// [0, n), in order, each with the read's source address and gso_size 0. Truncated reads
/// are dropped and counted. On an error the datagrams already placed stay valid.
SplitResult split_gro(std::span<RecvSlot> slots, std::size_t first, std::size_t filled);

}  // namespace qeli::transport
