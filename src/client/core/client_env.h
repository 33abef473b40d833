// ClientEnv: everything a ClientCore needs from its host, injected — the core itself does
// no host changes, owns no signals and opens no TUN:
//
//   * sockets: `protect` sees every socket after socket() and before connect()/bind() (a
//     phone's VPN service exempts it from the tunnel); `dial_tcp` replaces the TCP connect
//     altogether (tests hand over one end of a socket pair);
//   * the tunnel: `open_tunnel` gets what the server pushed in AUTH OK and returns the
//     TUN to carry it. The Linux daemon creates a TUN, sets its address and MTU and
//     installs routes and DNS (client/linux_tunnel.h); an app builds its TUN through the
//     platform and hands over the fd (tunio::FdTun); tests return a channel in memory;
//   * trust: `trust_on_first_use` stores a server key learned without a pin;
//   * the server's addresses: `refresh_servers` before each reconnect;
//   * the path: `watch_path` ends a TCP connection whose network the host left;
//   * reporting: `on_state` and `log`.
//
// Threading: every callback but watch_path runs on the thread that runs the core
// (ClientCore::run or the thread start() made), one at a time. None may throw (the core
// catches and stops).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "client/core/client_state.h"
#include "handshake/auth_ok.h"
#include "handshake/types.h"
#include "transport/endpoint.h"
#include "transport/udp_rx_stats.h"
#include "transport/unique_fd.h"
#include "tunio/linux_tun.h"
#include "tunio/tun_device.h"
#include "tunnel/pushed_params.h"
#include "tunnel/session_counters.h"

namespace qeli::client {

/// What a tunnel carries: what the server pushed in AUTH OK and what the core chose.
struct TunnelConfig {
  handshake::AuthOk pushed;    ///< address, prefix, routes, DNS as the server sent them
  std::size_t mtu = 0;         ///< the tunnel MTU (configured, pushed or probed)
  transport::SockAddr server;  ///< the address of the server the session runs over
  bool gso = false;            ///< super-packets cross whole (read the TUN whole)
  bool aes_gcm = false;        ///< data records go AES-256-GCM (caps::kAesGcm)
  /// Padding, heartbeat and shaping in effect: the config's fallbacks, overridden by what
  /// the server pushed (what an app shows; the core already applies them).
  tunnel::PushedParams params;
  tunio::ReadMode read_mode = tunio::ReadMode::split;
};

/// One session's TUN and whatever the host set up for it. Lives exactly as long as the
/// session: destroying it undoes what opening it changed (routes, DNS, the TUN itself).
class Tunnel {
 public:
  virtual ~Tunnel() = default;
  virtual tunio::TunDevice& device() = 0;
  /// The data phase starts; `counters` stay valid until ended().
  virtual void started(const tunnel::SessionCounters& counters) { (void)counters; }
  /// A UDP session's data phase starts (after started(); never for TCP): its socket's
  /// receive figures — the kernel's drops, the buffer's grows and size — stay valid until
  /// ended().
  virtual void started_udp(const transport::UdpRxStats& socket) { (void)socket; }
  /// The data phase ended with `why` (before the destructor).
  virtual void ended(const std::string& why) { (void)why; }
  /// It carries the pushed IPv6 address (TunnelConfig::pushed.x_ip6): false when the
  /// host could not set IPv6 up (the session then stays IPv4-only).
  virtual bool carries_ipv6() const { return false; }
};

/// Opens the tunnel for a session; an error is fatal (the core stops with it).
using TunnelOpener =
    std::function<Result<std::unique_ptr<Tunnel>, std::string>(const TunnelConfig& config)>;

enum class LogLevel : std::uint8_t { kDebug, kInfo, kWarn, kError };

/// One connection watched by ClientEnv::watch_path; destroying it ends the watch.
class PathWatch {
 public:
  virtual ~PathWatch() = default;
  /// The host ended the connection for a move after which the server is reached only
  /// through the tunnel itself (a full tunnel's route to the server went with the old
  /// network): no resume can get out, so the core starts a new session and the host sets
  /// its routes up again. Read after the connection ended.
  virtual bool needs_new_routes() const { return false; }
};

struct ClientEnv {
  /// After socket(), before connect() or bind(); false fails that attempt. Empty = none.
  std::function<bool(int fd)> protect;
  /// Replaces the TCP connect (the default: transport::tcp_connect with `protect`).
  /// `cancel_fd` becomes readable when the core is stopped.
  std::function<Result<transport::UniqueFd, std::string>(
      const transport::SockAddr& server, std::chrono::milliseconds timeout, int cancel_fd)>
      dial_tcp;
  /// Required.
  TunnelOpener open_tunnel;
  /// The host carries IPv6 inside the tunnel (an address, routes and the kill switch for
  /// it): the core then takes caps::kIpv6Inside from a server that offers it, and
  /// TunnelConfig::pushed holds x_ip6. False (the default): IPv4 only, as 0.7.16.
  bool ipv6_inside = false;
  /// A server key learned on first use (no pin): an error text is fatal. Empty = keep it
  /// for this run only.
  std::function<std::string(const handshake::X25519Public& key)> trust_on_first_use;
  /// Every session's server key, pinned or not, once the server proved it holds it and
  /// before the tunnel opens (an app's known-hosts policy): an error text is fatal. Runs
  /// before trust_on_first_use. Empty = none.
  std::function<std::string(const handshake::X25519Public& key, bool pinned)> confirm_server;
  /// Watches the TCP connection `fd` a session runs over: once the host no longer reaches
  /// the server from the connection's local address (it moved to another network), the
  /// host shuts the connection down (shutdown(SHUT_RDWR), from a thread of its own) and the
  /// core resumes the session on a new connection (docs/PROTOCOL.md §22) or reconnects —
  /// at once, not at its liveness deadline. The watch is destroyed before `fd` is closed.
  /// Empty, or a null watch = not watched. Unlike the other callbacks, called (and its
  /// watches destroyed) from the threads of the session's streams, concurrently.
  std::function<std::unique_ptr<PathWatch>(int fd)> watch_path;
  /// Before a reconnect: the server's addresses now (empty = keep the ones we have).
  std::function<std::vector<transport::SockAddr>()> refresh_servers;
  /// Every state change, with its detail ("reconnecting in 812 ms").
  std::function<void(ClientState state, const std::string& detail)> on_state;
  /// One line of the core's log. Empty = dropped.
  std::function<void(LogLevel level, std::string_view line)> log;
};

}  // namespace qeli::client
