// Runs the client's sans-I/O UDP handshake (handshake::UdpClientHandshake) over a
// UdpSocket: sends what it emits to the server, feeds it every datagram from the server
// (others are ignored: anyone can send a datagram), fires its timer at its deadline
// (retransmissions, the handshake timeout), and stops early on the stop signal.
#pragma once

#include <chrono>
#include <optional>
#include <span>
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

/// One address a reachability probe tries: its handshake (not yet started) and socket.
struct ReplyProbe {
  handshake::UdpClientHandshake* hs = nullptr;
  transport::UdpSocket* sock = nullptr;
  transport::SockAddr server;
};

/// A reachability probe (libqeli's qeli_client_udp_probe): starts every probe's handshake
/// at once, sends each first flight to its server and waits up to `timeout` for the first
/// datagram from any of them. The time to that reply, or nullopt (silence everywhere, a
/// stop). Goes no further: no AUTH is ever sent, so a probe costs the server no failed
/// login. A probe whose socket or handshake fails drops out; the others go on.
std::optional<std::chrono::milliseconds> first_reply_time(std::span<ReplyProbe> probes,
                                                          std::chrono::milliseconds timeout,
                                                          const StopSignal& stop);

}  // namespace qeli::engine
