// Runs the client's sans-I/O UDP handshake (handshake::UdpClientHandshake) over a
// UdpSocket: sends what it emits to the server, feeds it every datagram from the server
// (others are ignored: anyone can send a datagram), fires its timer at its deadline
// (retransmissions, the handshake timeout), and stops early on the stop signal.
#pragma once

#include <chrono>
#include <optional>
#include <vector>

#include "base/bytes.h"
#include "engine/stop_signal.h"
#include "handshake/udp_client_handshake.h"
#include "transport/udp_socket.h"

namespace qeli::engine {

/// Sends handshake datagrams to `to` in order, best effort: a datagram the socket buffer
/// cannot take now is dropped (the handshakes retransmit). Returns how many were sent.
std::size_t send_handshake_datagrams(transport::UdpSocket& sock,
                                     const std::vector<Bytes>& datagrams,
                                     const transport::SockAddr& to);

/// Drives `hs` (not yet started: this calls start()) until it is done or failed. Returns
/// the failure reason (kNone on success); a stop or a receive error yields kTimeout.
handshake::Failure drive_udp_client_handshake(handshake::UdpClientHandshake& hs,
                                              transport::UdpSocket& sock,
                                              const transport::SockAddr& server,
                                              const StopSignal& stop);

/// A reachability probe (libqeli's qeli_client_udp_probe): starts `hs`, sends its first
/// flight to `server` and waits up to `timeout` for the first datagram from it. The time to
/// that reply, or nullopt (silence, a stop, a receive error). Goes no further: no AUTH is
/// ever sent, so a probe costs the server no failed login.
std::optional<std::chrono::milliseconds> first_reply_time(handshake::UdpClientHandshake& hs,
                                                          transport::UdpSocket& sock,
                                                          const transport::SockAddr& server,
                                                          std::chrono::milliseconds timeout,
                                                          const StopSignal& stop);

}  // namespace qeli::engine
