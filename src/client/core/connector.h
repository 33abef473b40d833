// Connector: one connection of a ClientCore at a time — connect (each address in turn),
// the carrier's set-up, the handshake, then the data phase over the tunnel the host
// opens — and what it learned for the connect loop (client_core.cc) to decide on.
// Stream carriers are connector_stream.cc, the datagram one connector_datagram.cc.
// Internal to client/core. Runs on the core's thread only.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "client/core/client_core.h"
#include "client/core/core_log.h"
#include "engine/stream_framer.h"
#include "handshake/client_handshake.h"
#include "handshake/udp_client_handshake.h"
#include "transport/obfs_stream.h"
#include "transport/stream.h"
#include "transport/tls_stream.h"
#include "transport/udp_socket.h"
#include "transport/unique_fd.h"
#include "tunnel/session.h"
#include "wire/session_close.h"
#include "wire/udp_obfs.h"

namespace qeli::client {

/// Wall-clock seconds since the Unix epoch (the REALITY token's timestamp).
std::uint64_t unix_seconds();

struct BondRun;  // connector_bond.cc

/// The most server addresses a reachability probe tries (as 0.7.16).
inline constexpr std::size_t kMaxProbeAddresses = 16;

class Connector {
 public:
  /// What the last connect_once() learned.
  struct Attempt {
    bool rejected = false;                    ///< the server refused the credentials
    bool authenticated = false;               ///< AUTH OK arrived
    std::optional<wire::CloseReason> closed;  ///< the server's session-close frame
    bool aes_gcm = false;                     ///< data records go AES-256-GCM
    bool ipv6 = false;                        ///< IPv6 inside (caps::kIpv6Inside)
    std::uint32_t caps = 0;                   ///< negotiated with the server (caps::*)
    /// Non-empty: a failure that must not be retried (ClientErrc::kFatal), said so.
    std::string fatal;
  };

  Connector(ClientCore& core, const CoreLog& log);

  /// One connection, until its session ends. Returns how long the data phase ran (zero
  /// if it never got that far). A non-retryable failure is attempt().fatal.
  Duration connect_once();
  const Attempt& attempt() const { return attempt_; }
  /// The addresses tried in turn (ClientEnv::refresh_servers replaces them).
  void set_servers(std::vector<transport::SockAddr> servers) { servers_ = std::move(servers); }
  const std::vector<transport::SockAddr>& servers() const { return servers_; }
  /// "host:port" as configured (for the log).
  const std::string& endpoint_name() const { return endpoint_name_; }

  /// A UDP profile's reachability (libqeli's qeli_client_udp_probe): the profile's first
  /// flight (fake-TLS, QUIC-shaped or obfs, with its junk) to every address at once (the
  /// first kMaxProbeAddresses), `attempts` rounds of `timeout`; the time to the first
  /// reply, or why there was none. Never sends AUTH. Needs no credential and no pinned key.
  Result<std::chrono::milliseconds, std::string> probe_datagram(std::chrono::milliseconds timeout,
                                                                int attempts);

 private:
  Duration connect_stream();
  /// The reality-tls TLS 1.3 handshake over `tcp`; its TlsStream over it (which then
  /// owns `tcp`), or null when it failed (logged). With our extensions on, it also
  /// offers the TLS binding (caps::kTlsBinding) in `hc`.
  std::unique_ptr<transport::Stream> start_reality_tls(handshake::ClientConfig& hc,
                                                       std::unique_ptr<transport::Stream>& tcp,
                                                       const engine::StopSignal& stop);
  /// A connected socket's outer layers (obfs, reality-tls) and the handshake `hc`
  /// describes (AUTH, or a JOIN). nullopt when a layer failed (logged); otherwise the
  /// handshake's failure (kNone: `session` is set) for the caller to judge.
  struct OpenedStream {
    std::unique_ptr<transport::Stream> stream;
    transport::ObfsXorStream* obfs = nullptr;  ///< the obfs layer, if any (in `stream`)
    transport::TlsStream* tls = nullptr;       ///< the reality-tls layer, if any
    handshake::Failure failure = handshake::Failure::kNone;
    std::optional<handshake::ClientSession> session;
  };
  std::optional<OpenedStream> open_stream(transport::UniqueFd sock, handshake::ClientConfig& hc,
                                          const engine::StopSignal& stop);
  /// Stream bonding (connector_bond.cc, 0.7.16 §3.8): the data phase of a session whose
  /// AUTH OK allows `ok.max_streams` — `first` (the authenticated stream) plus JOINed
  /// ones as BondPolicy wants, a TUN reader pinning flows to streams, and lost streams
  /// opened again while any is live. Ends when every stream has or on a stop. `caps`:
  /// our extensions the first stream negotiated (JOINed ones take them too);
  /// `join_secret`: its session's, proved by the JOINs toward our server; `first_path`:
  /// the host's watch on the first stream's connection (null: none).
  tunnel::SessionEnd run_bonded(const handshake::AuthOk& ok, std::uint32_t caps,
                                std::shared_ptr<const crypto::Key32> join_secret,
                                tunnel::Session& first, engine::StreamFramer& first_framer,
                                tunio::TunDevice& tun, std::size_t mtu,
                                tunnel::SessionCounters& counters, const PathWatch* first_path);
  /// One JOINed stream of a bonded session, on its own thread: connect to server_, JOIN
  /// with `token` as stream `index`, carry its slot's inbox until it ends. False when it
  /// failed to join (or died within a second): the keeper backs off.
  bool run_joined(const handshake::JoinToken& token, std::size_t index, BondRun& run);
  Duration connect_datagram();
  // The UDP socket and the handshake's settings both uses of UDP share (obfs: the
  // per-datagram seal of mode=obfs, null otherwise).
  // `family`: AF_INET or AF_INET6, the family of the server address it talks to.
  Result<transport::UdpSocket, std::string> open_udp_socket(int family);
  handshake::UdpClientConfig udp_config(wire::UdpObfs* obfs) const;

  handshake::ClientConfig handshake_config(std::uint32_t extensions) const;
  // After the handshake, on both carriers: false for a key mismatch or a missing pin
  // (attempt_.fatal) and for any other failure, logged (noting a credential rejection:
  // a close after AUTH, or on UDP no answer to a sent AUTH).
  bool handshake_succeeded(handshake::Failure failure, bool udp_auth_sent = false);
  // Learns a key that was not pinned (ClientEnv::trust_on_first_use); false when the
  // host refuses to store it (attempt_.fatal).
  bool remember_server_key(const handshake::ClientSession& session);
  // Notes a failure that must not be retried; returns what an attempt that got nowhere
  // returns.
  Duration stop_for_good(std::string why) {
    attempt_.fatal = std::move(why);
    return Duration::zero();
  }
  // A control frame from the server during the data phase: notes a session-close reason.
  void on_server_control(const wire::ControlFrame& f);
  // What both carriers' sessions share: the pushed (or fallback) padding and heartbeat,
  // the MTU, the MTU report and client info sent first, our close extension.
  tunnel::SessionParams session_params(const handshake::AuthOk& ok, std::size_t mtu,
                                       bool close_notify);
  // Opens the tunnel for `ok` through the host (ClientEnv::open_tunnel), runs `data` (the
  // carrier's data phase) until the session ends, and closes it. Returns how long the
  // data phase ran. `udp`: the UDP socket's figures for the host (Tunnel::started_udp;
  // null for TCP), valid until this returns.
  using DataPhase = std::function<tunnel::SessionEnd(tunio::TunDevice&, std::size_t mtu,
                                                     tunnel::SessionCounters&)>;
  Duration run_tunnel(const handshake::AuthOk& ok, std::size_t mtu, tunio::ReadMode read_mode,
                      bool gso, const transport::UdpRxStats* udp, const DataPhase& data);
  // The host's watch on the path of the TCP connection `fd` (ClientEnv::watch_path; null:
  // none). Held while the connection carries the session.
  std::unique_ptr<PathWatch> watch_path(int fd) const;
  // The tunnel MTU without probing: `mtu` from the config or link, else the pushed one,
  // else 1400 (0.7.16 §8).
  std::size_t configured_mtu(const handshake::AuthOk& ok) const {
    return cfg_.mtu > 0 ? cfg_.mtu : ok.mtu.value_or(1400);
  }

  ClientCore& core_;
  const ClientCoreOptions& opt_;
  const config::ClientConfig& cfg_;
  const CoreLog& log_;
  Attempt attempt_;
  std::vector<transport::SockAddr> servers_;
  transport::SockAddr server_;  ///< the address of servers_ the session uses
  std::string endpoint_name_;
  std::optional<handshake::X25519Public> pinned_;
};

}  // namespace qeli::client
