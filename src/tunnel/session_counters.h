// Per-session data-plane counters (SessionCounter) and the per-reason drops of received
// records (RecordDrop), each a CounterSet with one table of names and help strings
// (base/counter_set.h). Written by the session's threads, read by the control plane at
// any time.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "base/counter_set.h"
#include "wire/packet_codec.h"

namespace qeli::tunnel {

enum class SessionCounter : std::uint8_t {
  kTxPackets,
  kTxBytes,
  kRxPackets,
  kRxBytes,
  kHeartbeatsRx,
  kHeartbeatsTx,
  kControlRx,
  kDropNotIpv4,
  kDropIpv6,
  kDropBadSource,
  kDropPolicy,
  kDropQueueFull,
  kDropReplay,
  kDropTunWrite,
  kDropBadGso,
  kDropTooBig,
  kFragNeededSent,
  kFragTx,
  kCount
};

inline constexpr std::array<CounterInfo, static_cast<std::size_t>(SessionCounter::kCount)>
    kSessionCounterInfo{{
        {"tx_packets", "IP packets sealed toward the peer"},
        {"tx_bytes", "IP bytes (inner) sealed toward the peer"},
        {"rx_packets", "IP packets received from the peer and delivered toward the TUN"},
        {"rx_bytes", "IP bytes (inner) received from the peer and delivered"},
        {"heartbeats_rx", "heartbeat (empty) records received"},
        {"heartbeats_tx", "heartbeat records sent"},
        {"control_rx", "control frames received"},
        {"drop_not_ipv4", "dropped: neither IPv4 nor IPv6 (garbage)"},
        {"drop_ipv6",
         "dropped: IPv6 from or to a peer that did not negotiate it (0.7.16 carries IPv4 only)"},
        {"drop_bad_source", "dropped: source is not the client's tunnel address or subnet"},
        {"drop_policy", "dropped: client_to_client, allowed_networks or link-scope multicast"},
        {"drop_queue_full", "dropped: the session's bounded queue was full"},
        {"drop_replay", "dropped: replayed or older than the replay window"},
        {"drop_tun_write", "dropped: the kernel refused the packet on the TUN"},
        {"drop_bad_gso",
         "dropped: a GSO chunk out of order or with bad metadata, or a "
         "super-packet that could not be split"},
        {"drop_too_big", "dropped: above what one record or the peer's MTU holds"},
        {"frag_needed_sent",
         "downlink packets above the client's MTU with DF (or IPv6), answered "
         "with ICMP fragmentation needed (ICMPv6 Packet Too Big)"},
        {"frag_tx",
         "downlink packets above the client's MTU without DF, sent as IPv4 "
         "fragments"},
    }};
constexpr const CounterInfo& counter_info(SessionCounter c) {
  return kSessionCounterInfo[static_cast<std::size_t>(c)];
}

class SessionCounters : public CounterSet<SessionCounter> {
 public:
  /// Counts a packet that is not carried: kDropIpv6 when its version nibble is 6 (and it
  /// holds at least the 40-byte IPv6 header), kDropNotIpv4 otherwise.
  void count_not_ipv4(const std::uint8_t* pkt, std::size_t len) {
    add(len >= 40 && (pkt[0] >> 4) == 6 ? SessionCounter::kDropIpv6 : SessionCounter::kDropNotIpv4);
  }
};

/// "queue_full=12 replay=1" for the non-zero drop (and fragmentation) counters, "none"
/// if all are zero (for the disconnect log line).
std::string describe_drops(const SessionCounters& c);

/// Why a received record was dropped without ending the session: a closed set of
/// reasons, each counted. Datagram carriers see spoofed, stale, duplicated and corrupted
/// datagrams as a matter of course; a stream carrier ends the session on most of these
/// (see tunnel::Receiver) and counts only replays and bad inner packets.
enum class RecordDrop : std::uint8_t {
  kEnvelope,        ///< the envelope (QUIC shape / obfs seal) did not unwrap
  kShort,           ///< fewer bytes than a record header
  kBadHeader,       ///< not `17 03 03`
  kLengthMismatch,  ///< record length ≠ datagram length (one record per datagram)
  kTooSmall,        ///< record payload cannot hold nonce, counter, padding length, tag
  kTooLarge,        ///< record payload above the protocol maximum
  kAuthFailed,      ///< AEAD tag did not verify
  kBadPadding,      ///< padding length larger than the plaintext
  kReplay,          ///< counter already seen or older than the replay window
  kNotIpv4,         ///< authenticated, but not IPv4 (nor negotiated IPv6: docs/PROTOCOL.md §21)
  kUnknownSource,   ///< from an address that is not this session's peer
  kFiltered,        ///< refused by the inbound filter (source check, ACL; counted there)
  kCount
};

inline constexpr std::size_t kRecordDropCount = static_cast<std::size_t>(RecordDrop::kCount);

inline constexpr std::array<CounterInfo, kRecordDropCount> kRecordDropInfo{{
    {"envelope", "envelope did not unwrap"},
    {"short", "shorter than a record header"},
    {"bad_header", "bad record header"},
    {"length_mismatch", "record length differs from the datagram"},
    {"too_small", "record too small"},
    {"too_large", "record too large"},
    {"auth_failed", "authentication failed"},
    {"bad_padding", "bad padding length"},
    {"replay", "replayed or too old"},
    {"not_ipv4", "inner packet neither IPv4 nor negotiated IPv6"},
    {"unknown_source", "unknown source address"},
    {"filtered", "refused by the inbound filter"},
}};
constexpr const CounterInfo& counter_info(RecordDrop d) {
  return kRecordDropInfo[static_cast<std::size_t>(d)];
}
/// The human text of a drop reason (its help string).
constexpr const char* to_string(RecordDrop d) { return counter_info(d).help.data(); }
/// The drop reason for a record that failed to open.
RecordDrop drop_reason(wire::OpenError e);

using RecordDrops = CounterSet<RecordDrop>;

}  // namespace qeli::tunnel
