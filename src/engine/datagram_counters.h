// Why a received UDP datagram was dropped: a closed set of reasons, each counted
// (STYLE.md practices 11-12). A bad datagram is never fatal for the session: UDP peers
// see spoofed, stale, duplicated and corrupted datagrams as a matter of course.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "wire/packet_codec.h"

namespace qeli::engine {

enum class DatagramDrop : std::uint8_t {
  kEnvelope,        ///< the envelope (QUIC shape / obfs seal) did not unwrap
  kShort,           ///< fewer bytes than a record header
  kBadHeader,       ///< not `17 03 03`
  kLengthMismatch,  ///< record length ≠ datagram length (one record per datagram)
  kTooSmall,        ///< record payload cannot hold nonce, counter, padding length, tag
  kTooLarge,        ///< record payload above the protocol maximum
  kAuthFailed,      ///< AEAD tag did not verify
  kBadPadding,      ///< padding length larger than the plaintext
  kReplay,          ///< counter already seen or older than the replay window
  kNotIpv4,         ///< authenticated, but the inner packet is not IPv4 (0.7.16 carries v4)
  kUnknownSource,   ///< from an address that is not this session's peer
  kCount
};

inline constexpr std::size_t kDatagramDropCount = static_cast<std::size_t>(DatagramDrop::kCount);

const char* to_string(DatagramDrop d);
/// The drop reason for a record that failed to open.
DatagramDrop drop_reason(wire::OpenError e);

/// Per-reason drop counters of one receiver: written by its thread, read by anyone
/// (relaxed atomics, monotonic).
class DatagramDrops {
 public:
  void count(DatagramDrop d) {
    n_[static_cast<std::size_t>(d)].fetch_add(1, std::memory_order_relaxed);
  }
  std::uint64_t get(DatagramDrop d) const {
    return n_[static_cast<std::size_t>(d)].load(std::memory_order_relaxed);
  }
  std::uint64_t total() const;

 private:
  std::array<std::atomic<std::uint64_t>, kDatagramDropCount> n_{};
};

}  // namespace qeli::engine
