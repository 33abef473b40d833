// What a session does with the client's control frames (reference qeli-0.7.16.md §3.5),
// shared by the TCP and UDP carriers:
//   type 1 MTU report → (tunnel::Receiver already stored it in Session::peer_state.mtu,
//                       clamped to 576..16638) when it is below the profile's MTU,
//                       Session::downlink_mtu (the downlink clamp), logged once;
//   type 2 client info → Session::client_version / client_platform (informational).
// Other types are left to the caller or ignored (capabilities: tunnel::Receiver). And what the
// TUN reader does with a downlink packet above that MTU (fits_peer_mtu): ICMP
// "fragmentation needed" with DF, userspace IPv4 fragments without.
#pragma once

#include <cstdint>
#include <string_view>

#include "base/bytes.h"
#include "server/session.h"
#include "server/token_bucket.h"
#include "tunio/gso_metadata.h"
#include "tunio/packet_batch.h"
#include "wire/control_frame.h"

namespace qeli::server {

/// Applies `f` to `s` (see above); `profile_mtu` is the profile's tun.mtu in bytes and
/// `profile` its name (for the one log line of a lowered MTU). Malformed bodies are
/// ignored. Called from the session's receive side.
void apply_client_control(Session& s, const wire::ControlFrame& f, std::uint32_t profile_mtu,
                          std::string_view profile);

/// The TUN reader's check for a session whose downlink_mtu is set (`mtu`, bytes): true
/// if `pkt` (with `meta`) fits and the caller sends it as usual. Otherwise it is handled
/// here and must not be sent as it is:
///   * IPv4 with DF set → an ICMP "fragmentation needed" toward its origin is appended to
///     `icmp` (slots of at least tunio::kIcmpv6PacketTooBigMaxSize bytes; to be written
///     into the TUN) and counted in frag_needed_sent; IPv6 → an ICMPv6 Packet Too Big
///     the same way;
///   * DF clear, not a GSO super-packet → split into IPv4 fragments of ≤ `mtu` bytes
///     (tunio/ipv4_fragment.h) through `frags` (scratch: slots of ≥ `mtu` bytes, left
///     empty on return), pushed into s.inbox like any packet, the inbox notified, and
///     counted in frag_tx. A partial (offloaded) L4 checksum is completed in `pkt` first:
///     the fragments carry the datagram's bytes as they are;
///   * otherwise (a non-DF super-packet, malformed, no ICMP allowed, `icmp` full, too
///     many fragments) → counted in drop_too_big.
/// `icmp_rate` (may be null: unlimited) bounds the ICMP and ICMPv6 errors it writes
/// (RFC 4443 §2.4 f, RFC 1812 §4.3.2.8): over it, the packet is dropped (drop_too_big).
bool fits_peer_mtu(Session& s, MutableByteSpan pkt, const tunio::GsoMetadata& meta,
                   std::uint32_t mtu, tunio::PacketBatch& icmp, tunio::PacketBatch& frags,
                   TokenBucket* icmp_rate = nullptr, Instant now = {});

}  // namespace qeli::server
