// ProfileRuntime: one `[profile:NAME]` of a server carrying traffic over TCP or UDP.
//
// TCP:
//   listener thread    TcpListener (server/tcp_listener.h): accept → one connection
//                      thread per client (bounded pre-auth, per-source new-session limit)
//   connection thread  handshake (engine::drive_server_handshake) → Admission
//                      (server/admission.h: lockout, tarpit, Argon2id, the user,
//                      SessionTable) → AUTH OK → the session's receive loop
//                      (socket → TUN); its send thread seals what the TUN readers
//                      queued for it
// UDP (udp_runtime.cc, udp_worker.h; 0.7.16 §3.9):
//   worker threads     one SO_REUSEPORT socket + UdpWorker per TUN queue: recvmmsg, demux
//                      by source address → the session's DatagramReceiver (→ TUN queue)
//                      or that source's half-open UdpServerHandshake (bounded per worker,
//                      oldest evicted); AUTH verification runs on its own thread and
//                      posts back to the worker; liveness / idle / kick end sessions
//   sender threads     one per UDP session: inbox → DatagramWriter → the worker's socket
//                      (senders of one worker share a mutex; the worker only receives)
// Both:
//   TUN reader threads one per TUN queue: read a batch, route each packet by
//                      destination to its session's inbox, wake each session once
//                      (TunRouter, server/tun_router.h)
//
// Threads are joined by stop(). Nothing here reads the config file: the caller passes
// the parsed profile and the shared pieces.
#pragma once

#include <atomic>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "config/server_config.h"
#include "crypto/x25519.h"
#include "engine/stop_signal.h"
#include "handshake/server_handshake.h"
#include "server/admission.h"
#include "server/auth_guard.h"
#include "server/carrier_counters.h"
#include "server/dns_service.h"
#include "server/event_log.h"
#include "server/ndp_proxy_runtime.h"
#include "server/new_session_limiter.h"
#include "server/profile_counters.h"
#include "server/profile_events.h"
#include "server/reality_gate.h"
#include "server/reality_replay.h"
#include "server/session_table.h"
#include "server/tcp_listener.h"
#include "server/tls_target.h"
#include "server/traffic_accounts.h"
#include "server/tun_subnet_routes.h"
#include "server/udp_worker.h"
#include "server/user_directory.h"
#include "sys/ip_prefix.h"
#include "transport/bridge.h"
#include "transport/stream.h"
#include "transport/unique_fd.h"
#include "tunio/linux_tun.h"
#include "tunnel/session_end.h"

namespace qeli::server {

class ProfileRuntime : private UdpWorkerHost {
 public:
  ProfileRuntime(config::ProfileConfig profile, const config::AuthConfig& auth,
                 crypto::X25519KeyPair identity, UserDirectory& users, AuthGuard& guard);
  ~ProfileRuntime() override;
  ProfileRuntime(const ProfileRuntime&) = delete;
  ProfileRuntime& operator=(const ProfileRuntime&) = delete;

  /// Opens the TUN (address, MTU, link up through netlink) and the listener, starts the
  /// threads. Error: a message naming what failed.
  Status<std::string> start();
  /// Stops accepting, ends every session, joins every thread, deletes the TUN.
  void stop();
  /// Runs routing.post_up (after start()); false if it failed (logged). stop() then runs
  /// routing.post_down before the TUN goes away.
  bool run_post_up();

  const std::string& name() const { return profile_.name; }
  const config::ProfileConfig& profile() const { return profile_; }
  SessionTable& sessions() { return *sessions_; }
  const ProfileCounters& counters() const { return counters_; }
  /// obfs set-up, REALITY gate and decoy bridge counters (server/carrier_counters.h).
  const CarrierCounters& carrier_counters() const { return carrier_; }
  const crypto::X25519Public& public_key() const { return identity_.public_key; }
  /// The profile's DNS proxy (dns.enabled), or nullptr.
  const DnsService* dns() const { return dns_.get(); }
  /// Where session and lockout events go (server/event_log.h); null = nowhere. Set
  /// before start().
  void set_events(EventLog* events) { events_.set_log(events); }
  /// Per-user limits, quotas and totals (shared by every profile); null = none. Before
  /// start().
  void set_accounts(TrafficAccounts* accounts) { accounts_ = accounts; }
  /// The server's client_subnet table (shared by every profile); null = the profile's
  /// own. Before start().
  void set_subnet_claims(SubnetClaims* claims) { subnet_claims_ = claims; }
  /// Where the REALITY replay cache persists (so a restart does not forget accepted
  /// tokens); empty = memory only. Set before start().
  void set_reality_replay_path(std::string path) { replay_path_ = std::move(path); }
  /// reality-tls: the target shape the terminator mirrors; null for other modes.
  const TlsTarget* tls_target() const { return tls_target_.get(); }
  /// A reload: reality-tls probes its target again (in the background).
  void on_reload() {
    if (tls_target_) tls_target_->refresh_now();
  }
  /// A UDP profile's worker sockets (transport::UdpRxStats, relaxed loads: the workers
  /// never wait): kernel drops and buffer grows summed, the largest receive buffer. None
  /// for TCP, or before start(). The control socket (its only caller) starts after every
  /// profile's start() and stops before their stop(), so the workers do not change under it.
  std::optional<transport::UdpRxFigures> udp_socket_figures() const;
  /// The TCP port actually bound (useful when the config says 0 in tests).
  std::uint16_t bound_port() const { return bound_port_; }

 private:
  /// A connection the TcpListener accepted: to the REALITY gate, a thread of its own
  /// (handle_connection), or closed (over the pre-auth or new-session limits).
  void on_accept(transport::UniqueFd conn, const transport::SockAddr& peer);
  /// One accepted connection from `peer` (as accept() gave it: a peer that has already
  /// reset the connection still counts against its own address), on its own thread
  /// (tcp_connection.cc). `prefix`: bytes the REALITY gate already read (the
  /// ClientHello); `short_id_owner`: the user whose own short id the token carried (that
  /// user alone may authenticate).
  void handle_connection(transport::UniqueFd fd, const transport::SockAddr& peer, Bytes prefix = {},
                         std::optional<std::string> short_id_owner = std::nullopt);
  void tun_reader(std::size_t queue);
  /// Stream bonding (joined_stream.cc; 0.7.16 §3.8): a JOIN's session and bond slot.
  struct JoinedStream {
    std::shared_ptr<Session> session;
    std::size_t slot = 0;
    transport::SockAddr peer;
    bool proved = false;  ///< it proved the session's keys (PROTOCOL §19), not only the token
    /// A session resume (PROTOCOL §22): the session had no live stream, or this one
    /// replaced the stream the server still held.
    bool resume = false;
  };
  /// Finds the live session a JOIN's token names and claims a slot of its bond
  /// (atomically against max_streams); false with ctx.reason when it cannot.
  bool claim_join_slot(const handshake::JoinRequest& join, struct AuthContext& ctx,
                       JoinedStream& out);
  /// After the connection of a resumable session (caps::kResume) broke with `end`: holds
  /// the session for roaming.grace_secs while its client resumes it, and while resumed
  /// streams carry it; returns why it finally ended.
  tunnel::SessionEnd hold_for_resume(Session& s, tunnel::SessionEnd end);
  /// Whether a stream of `s` that ended with `end` leaves the session waiting for a
  /// resume: its client took caps::kResume, the connection broke (not a stop, kick,
  /// quota, idle end or the client's goodbye), and the profile resumes.
  bool may_resume(const Session& s, tunnel::SessionEnd end) const;
  /// The data phase of a JOINed stream until it or its session ends; then frees the slot.
  void serve_joined_stream(std::unique_ptr<transport::Stream> stream, handshake::ServerSession hs,
                           const JoinedStream& joined);
  void reap_finished_connections();
  /// Pre-auth connections allowed at once (0.7.16: max(256, 8 × cores)).
  static int preauth_limit();
  /// Runs `f` on a thread of its own, joined by reap_finished_connections() (which it
  /// runs first) or stop(). False when no thread could be started (logged; `f` never runs).
  bool spawn(std::function<void()> f);
  /// REALITY (reality_proxy.enabled on TCP): the replay cache, the decoy bridge and the
  /// gate that decides between them and handle_connection.
  Status<std::string> start_reality();
  /// A log line when bridges fail to reach the target (at most one a minute: a scanner
  /// flood must not flood the journal), so an unreachable cover site is not only a counter.
  void warn_bridge_target_unreachable();
  Status<std::string> refuse_self_target() const;
  // UDP (udp_runtime.cc)
  Status<std::string> start_udp(const std::vector<transport::SockAddr>& addrs);
  void stop_udp();
  // UdpWorkerHost (udp_runtime.cc)
  bool admit_new_session(SourceKey ip, Instant now) override;
  bool verify_auth(AuthContext ctx, AuthDone done) override;
  void session_started(Session& s, const transport::SockAddr& from, bool quic) override;
  void session_ended(const std::shared_ptr<Session>& s, tunnel::SessionEnd end) override;
  void release_session(const std::shared_ptr<Session>& s) override;
  UdpWorker* worker(std::size_t id) override;

  config::ProfileConfig profile_;
  config::AuthConfig auth_;
  crypto::X25519KeyPair identity_;
  UserDirectory& users_;
  AuthGuard& guard_;
  ProfileCounters counters_;
  CarrierCounters carrier_;
  ProfileEvents events_;
  TrafficAccounts* accounts_ = nullptr;
  // Lockout closes are logged at most once per 10 s (a locked-out source
  // may reconnect thousands of times a second); locked_out counts them all.
  std::atomic<std::int64_t> last_lockout_log_ms_{0};

  std::unique_ptr<tunio::LinuxTun> tun_;
  std::unique_ptr<DnsService> dns_;  ///< after the TUN (it listens on its address)
  std::vector<std::unique_ptr<std::mutex>> tun_write_mu_;
  /// The host routes of claimed `client_subnet`s; before sessions_, which calls it.
  std::unique_ptr<TunSubnetRoutes> subnet_routes_;
  SubnetClaims* subnet_claims_ = nullptr;
  /// routing.ipv6.ndp_proxy's entries; before sessions_, which calls it.
  std::unique_ptr<NdpProxyRuntime> ndp_proxy_;
  std::unique_ptr<SessionTable> sessions_;
  std::unique_ptr<Admission> admission_;   ///< with sessions_ (start())
  std::unique_ptr<TcpListener> listener_;  ///< TCP: bind.address first, then `listen`
  std::uint16_t bound_port_ = 0;
  engine::StopSignal stop_;
  std::thread accept_thread_;
  std::vector<std::thread> tun_threads_;
  std::mutex conn_mu_;
  struct Conn {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };
  std::list<Conn> conns_;
  std::atomic<int> preauth_{0};
  std::string replay_path_;
  std::unique_ptr<RealityReplayCache> replay_;
  std::unique_ptr<transport::Bridge> bridge_;
  std::atomic<std::int64_t> bridge_warned_ms_{-1};  // steady clock ms of the last warning
  std::atomic<std::int64_t> spawn_warned_ms_{-1};   // the same for a failed spawn()
  std::unique_ptr<RealityGate> gate_;
  std::unique_ptr<TlsTarget> tls_target_;  // reality-tls only
  /// The per-source-IP new-session limit, shared by the profile's UDP workers.
  std::unique_ptr<NewSessionLimiter> new_sessions_;
  std::vector<std::unique_ptr<UdpWorker>> udp_workers_;
  std::vector<std::thread> udp_threads_;
  bool started_ = false;
  bool nat_applied_ = false;
  /// Sessions held for a resume now (roaming.max_orphaned bounds them).
  std::atomic<std::uint32_t> orphans_{0};
  /// Forwarding switches this profile turned on (they were off): put back at stop() if
  /// they still hold what we wrote (docs/OPERATIONS.md "What is changed").
  std::vector<sys::IpFamily> forwarding_enabled_;
  bool post_up_ran_ = false;  ///< post_down is due at stop()
};

}  // namespace qeli::server
