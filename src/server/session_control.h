// What a session does with the client's control frames (reference qeli-0.7.16.md §3.5),
// shared by the TCP and UDP carriers:
//   type 1 MTU report → Session::peer_mtu (clamped to 576..16638) and, when it is below
//                       the profile's MTU, Session::downlink_mtu (the downlink clamp);
//   type 2 client info → Session::client_version / client_platform (informational).
// Other types are left to the caller (capabilities, TCP only) or ignored. And what the
// TUN reader does with a downlink packet above that MTU (fits_peer_mtu).
#pragma once

#include <cstdint>
#include <string_view>

#include "base/bytes.h"
#include "server/session.h"
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
/// if `pkt` (with `meta`) fits. Otherwise the packet must not be sent: with DF set an
/// ICMP "fragmentation needed" toward its origin is appended to `icmp` (slots of
/// tunio::kIcmpFragNeededMaxSize bytes; to be written into the TUN) and counted in
/// frag_needed_sent; without DF, when no ICMP may be sent, or when `icmp` is full, it is
/// counted in drop_too_big.
bool fits_peer_mtu(Session& s, ByteSpan pkt, const tunio::GsoMetadata& meta, std::uint32_t mtu,
                   tunio::PacketBatch& icmp);

}  // namespace qeli::server
