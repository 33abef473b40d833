// TCP sockets for the stream carriers: listen, connect with a deadline, options, and
// deadline-bounded send/receive helpers for the handshake phase. The data phase uses the
// fds directly from the engine's loops.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include "base/bytes.h"
#include "base/result.h"
#include "transport/endpoint.h"
#include "transport/unique_fd.h"

namespace qeli::transport {

struct StreamOptions {
  bool nodelay = true;
  int keepalive_secs = 60;  ///< 0 = off
  int send_buffer = 0;      ///< bytes; 0 = kernel autotuning (measured faster, see BENCHMARKS)
  int recv_buffer = 0;
};

/// A listening TCP socket (SO_REUSEADDR, close-on-exec, non-blocking accept). An IPv6
/// address listens on IPv6 only (IPV6_V6ONLY, as nginx's `listen [::]:443`): `::` and
/// `0.0.0.0` on one port are two listeners, and a peer's address is never IPv4-mapped.
Result<UniqueFd, std::string> tcp_listen(const SockAddr& ep, int backlog = 1024);

/// Connects within `timeout`. The returned fd is blocking, close-on-exec. If `cancel_fd`
/// (>= 0, e.g. a StopSignal's fd) becomes readable first, gives up at once with an error
/// that says "cancelled": a daemon told to stop must not sit out a connect to an
/// unreachable server (SYNs are retried for the whole timeout, 30 s by default).
/// `protect`, if set, sees the socket after socket() and before connect() (a phone's VPN
/// service exempts it from the tunnel there); false fails the connect.
using SocketHook = std::function<bool(int fd)>;
Result<UniqueFd, std::string> tcp_connect(const SockAddr& ep, std::chrono::milliseconds timeout,
                                          int cancel_fd = -1, const SocketHook& protect = {});

/// Applies `opt` to a connected socket. Errors are ignored except for the log line
/// returned (empty when everything applied).
std::string apply_stream_options(int fd, const StreamOptions& opt);

enum class IoResult { kOk, kTimeout, kClosed, kError };

/// Sends all of `data` before `timeout` expires (poll-based; works on blocking and
/// non-blocking sockets).
IoResult send_all(int fd, ByteSpan data, std::chrono::milliseconds timeout);

/// Receives at least 1 and at most `out.size()` bytes within `timeout`; `got` = bytes.
IoResult recv_some(int fd, MutableByteSpan out, std::chrono::milliseconds timeout,
                   std::size_t& got);

/// Ends our side of a connection so that what we last wrote (a farewell) still arrives:
/// shutdown(SHUT_WR) queues the FIN after it, then the peer's bytes are read and dropped
/// until it closes or `max_wait` passes. A plain close() with unread input would reset
/// the connection and discard our unsent data with it (RFC 1122 §4.2.2.13, RFC 2525
/// §2.17). The caller closes the fd afterwards.
void half_close_and_drain(int fd, std::chrono::milliseconds max_wait);

/// Sets or clears O_NONBLOCK.
bool set_nonblocking(int fd, bool on);

/// True when the address of `a` (its port is ignored) is an address of this host (any of
/// its interfaces, 127/8, ::1, a wildcard): a socket can bind to it. Used to refuse a relay
/// target that is our own listener.
bool is_local_address(const SockAddr& a);

/// Whether a listener of `socktype` (SOCK_STREAM or SOCK_DGRAM) could take `a` now: a bind
/// without SO_REUSEPORT, closed at once. Another process already there — also one whose
/// sockets share the port with SO_REUSEPORT (a second `qeli server` on the same UDP
/// profile would silently split its clients' datagrams) — makes it fail with the reason.
Status<std::string> probe_bind(const SockAddr& a, int socktype);

}  // namespace qeli::transport
