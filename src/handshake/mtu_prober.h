// MtuProber: the client's UDP path-MTU probing after AUTH OK (reference qeli-0.7.16.md
// §3.9 "Path-MTU probing"; docs/PROTOCOL.md "Path-MTU probing"). Sans-I/O: probes and a
// deadline out, send results, acks and `now` in; the socket loop lives in
// engine/mtu_probe_driver.h.
//
//   1. The rungs, largest first: the ceiling (the pushed MTU, or 1400), then those of
//      12000, 9000, 6000, 4000, 2500, 2000, 1500, 1360, 1320, 1280, 1200 below it, then
//      — our addition — the largest rung whose datagram fits a 1280-byte path when the
//      envelope makes 1200 too big for one (QUIC shape, obfs seal: 1195, 1191), then the
//      floor 576. A rung is a tunnel MTU; its probe is sized to the IP packet a
//      full-size data datagram would be: rung + outer_overhead (48 record bytes as
//      0.7.16 counts them + envelope + UDP 8 + IP 20).
//   2. Rounds (our change: 0.7.16 probes one rung at a time): each round sends one probe
//      (msg 4, DF set) for every rung not yet ruled out, largest first, back to back, then
//      waits `timeout` for acks (msg 5). A send the kernel refuses as too big (EMSGSIZE:
//      it knows the path MTU) rules its rung out at once. Up to `tries` rounds. A ladder of
//      sequential 2 × 300 ms waits used the whole 3 s budget before reaching the rung of a
//      path that silently drops datagrams above 1280 bytes (the trial: the QUIC shape's
//      1195 rung came after five others); a round costs one timeout whatever the rung.
//   3. The largest acked rung wins: at once if no larger rung is left in play, else after
//      the last round (the next round re-probes only the rungs above it, so one lost
//      probe costs one more wait, not its rung). A late ack (of any probe sent) counts.
//   4. Nothing acked after the last round, or the budget spent without an ack → fallback
//      (outcome kFallback, which the caller logs as a warning): not the ceiling — a path
//      that acked nothing may drop anything big — but the largest rung whose datagram
//      fits a 1280-byte path (the IPv6 minimum, which real paths carry), never above the
//      ceiling and never a size the kernel refused.
//
// All sizes in bytes. One thread at a time; nothing allocates after construction.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "base/clock.h"
#include "wire/udp_frag.h"

namespace qeli::handshake {

/// The reference's rungs between the ceiling and the floor (tunnel MTU, bytes).
inline constexpr std::array<std::uint16_t, 11> kMtuLadder = {12000, 9000, 6000, 4000, 2500, 2000,
                                                             1500,  1360, 1320, 1280, 1200};
/// The IPv6 minimum link MTU (RFC 8200 §5): the narrowest path worth a rung of its own.
/// The reference's ladder jumps from 1200 to 576, so with an envelope that makes a
/// 1200-byte tunnel MTU overflow a 1280-byte path, 0.7.16 settles for 576.
inline constexpr std::size_t kMinPathMtu = 1280;
/// The last rung (= wire::kMinTunnelMtu).
inline constexpr std::size_t kMtuFloor = 576;
/// What 0.7.16 adds for one data record around a packet when sizing probes. The record
/// itself adds 43 (header 5, nonce 12, counter 8, padding length 2, tag 16): 5 spare.
inline constexpr std::size_t kProbeRecordOverhead = 48;
/// UDP 8 + IPv4 20.
inline constexpr std::size_t kProbeUdpIpv4Overhead = 28;
/// UDP 8 + IPv6 40 (a server reached over IPv6).
inline constexpr std::size_t kProbeUdpIpv6Overhead = 48;

struct MtuProberConfig {
  /// Largest rung: the pushed MTU (or 1400 without one); clamped to 576..16638.
  std::size_t ceiling = 1400;
  /// Bytes from a tunnel MTU to the outer IP packet: kProbeRecordOverhead + envelope
  /// (QUIC short header 9, obfs seal 13) + kProbeUdpIpv4Overhead (kProbeUdpIpv6Overhead
  /// toward an IPv6 server: engine::probe_path_mtu adds the difference).
  std::size_t outer_overhead = kProbeRecordOverhead + kProbeUdpIpv4Overhead;
  unsigned tries = 2;                                 ///< rounds, ≥ 1
  Duration timeout = std::chrono::milliseconds(300);  ///< wait for the acks of a round
  Duration budget = std::chrono::milliseconds(3000);  ///< the whole run
};

enum class MtuProbeOutcome : std::uint8_t {
  kRunning,
  kProbed,    ///< a rung was acked: mtu() is it
  kFallback,  ///< nothing acked within the rungs or the budget: mtu() is the fallback
};
const char* to_string(MtuProbeOutcome o);

/// A probe to send now: its fields (id, outer_size = the IP packet size to build) and
/// the rung (tunnel MTU) it tests.
struct MtuProbeRequest {
  wire::MtuProbe probe;
  std::size_t mtu = 0;
};

class MtuProber {
 public:
  MtuProber(const MtuProberConfig& config, Instant now);

  /// The probe to send now, or nullopt (waiting for an ack or a deadline, or done).
  /// Report what the socket did with it through on_sent() before the next call.
  std::optional<MtuProbeRequest> next(Instant now);
  /// `too_big`: the kernel refused the probe (EMSGSIZE). Other send failures count as
  /// sent (the probe is then simply lost).
  void on_sent(bool too_big, Instant now);
  /// An ack from the server (already opened and parsed). Unknown ids are ignored.
  void on_ack(const wire::MtuProbe& ack, Instant now);
  /// Timeouts; call at deadline().
  void on_timer(Instant now);

  /// When on_timer() must run next (nullopt when done).
  std::optional<Instant> deadline() const;
  MtuProbeOutcome outcome() const { return outcome_; }
  bool done() const { return outcome_ != MtuProbeOutcome::kRunning; }
  /// The chosen tunnel MTU (valid when done()).
  std::size_t mtu() const { return mtu_; }
  /// The rungs of this run, largest first.
  const std::vector<std::size_t>& rungs() const { return rungs_; }
  std::size_t probes_sent() const { return sent_.size(); }
  std::size_t refused() const { return refused_count_; }

 private:
  struct Sent {
    std::uint16_t id;
    std::uint16_t outer;
    std::size_t rung;
  };
  /// The next rung of this round to send, or rungs_.size() when the round is all sent.
  std::size_t next_rung_to_send() const;
  /// The largest rung still in play (not refused): acking it ends the run at once.
  std::size_t top_in_play() const;
  void end_round(Instant now);
  void finish(MtuProbeOutcome o, std::size_t mtu);
  std::size_t fallback() const;

  MtuProberConfig config_;
  std::vector<std::size_t> rungs_;
  std::vector<bool> refused_;  // per rung: the kernel said EMSGSIZE
  std::vector<Sent> sent_;
  std::size_t cursor_ = 0;            // next rung index to consider in this round
  std::size_t best_;                  // index of the largest acked rung (rungs_.size(): none)
  unsigned round_ = 0;                // rounds started
  bool reported_ = true;              // on_sent() came for the last next()
  std::optional<Instant> round_due_;  // set when the round is all sent
  Instant end_;
  std::uint16_t next_id_ = 1;
  std::size_t refused_count_ = 0;
  MtuProbeOutcome outcome_ = MtuProbeOutcome::kRunning;
  std::size_t mtu_ = 0;
};

}  // namespace qeli::handshake
