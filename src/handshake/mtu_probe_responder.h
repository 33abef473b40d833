// MtuProbeResponder: the server's answer to a client's path-MTU probes (reference
// qeli-0.7.16.md §3.9; docs/PROTOCOL.md "Path-MTU probing"). Sans-I/O, one per
// authenticated UDP session (strangers never reach it: their datagrams go to a
// handshake, which drops probes).
//
//   probe (msg 4: id LE ‖ outer_size LE ‖ pad) → ack (msg 5: the same id and outer_size,
//   no pad: 10 bytes, never more than the probe)
//
// Acks are bounded per session: at most kMaxAcks in any kAckWindow window (a fixed
// window from the first ack in it), so a peer cannot turn the server into a reflector of
// small datagrams either. What is over the bound, an ack (msg 5), or anything that does
// not parse gets nothing and is counted.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

#include "base/bytes.h"
#include "base/clock.h"

namespace qeli::handshake {

class MtuProbeResponder {
 public:
  /// A probing client needs at most ~13 rungs × 2 tries; 32 leaves room for a re-probe.
  static constexpr std::size_t kMaxAcks = 32;
  static constexpr auto kAckWindow = std::chrono::seconds(10);

  /// `inner`: the de-enveloped datagram (starts with F0 9B 71). Returns the ack's inner
  /// bytes to wrap in the session's envelope and send back, or empty for nothing.
  Bytes on_probe(ByteSpan inner, Instant now);

  std::uint64_t answered() const { return answered_; }
  std::uint64_t refused() const { return refused_; }  ///< malformed, an ack, or over the bound

 private:
  Instant window_start_{};
  std::size_t in_window_ = 0;
  std::uint64_t answered_ = 0;
  std::uint64_t refused_ = 0;
};

}  // namespace qeli::handshake
