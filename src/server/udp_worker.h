// UdpWorker: one SO_REUSEPORT socket of a UDP profile and the sessions the kernel's flow
// hash gives it (qeli 0.7.16 §3.9). A profile runs one per TUN queue and listener address,
// each on its own thread (run()). The loop:
//   1. recvmmsg a batch straight into TUN-write slots (engine::DatagramSource);
//   2. per datagram, by source address: a session's → its receiver (open in place) →
//      inbound filter, or, for an MTU probe, a bounded ack (MtuProbeResponder); an AUTH
//      retransmit of a young session → the cached AUTH OK (UdpAuthOkResender); anyone
//      else → that source's half-open handshake (UdpHalfOpenTable; a stranger whose first
//      datagram is not a handshake datagram, or whose hello is over the limits, leaves no
//      state and gets nothing back; a new hello's key agreement runs only with a login
//      slot — from the unverified share unless its source proved with a cookie that it
//      receives, else a challenge (msg 7) goes back instead — within the worker's
//      pre-auth crypto budget and the profile's per-source-IP new-session limit);
//   3. the batch is coalesced (finish_batch) and written to the worker's TUN queue;
//   4. AUTH requests go to the host (UdpWorkerHost::verify_auth: lockout, tarpit,
//      Argon2id, admission, on a thread of its own); the verdict comes back through the
//      worker's queue + notifier, and AUTH OK turns the handshake into a UdpPeer with its
//      own sender thread (inbox → seal → this socket, under send_mu);
//   5. a sweep (at most every 100 ms while datagrams arrive, at least about once a second,
//      and on every wake) fires handshake timers and ends sessions
//      whose liveness or idle deadline passed or that were kicked / stopped;
//   6. roaming (caps::kRoam, docs/PROTOCOL.md §20; udp_worker_roaming.cc): a record from an
//      unknown address whose nonce carries a session's connection id (RoamIndex) is opened
//      by that session; only if it passes the AEAD and the replay window does the session
//      move to the address (no handshake). When the kernel hashed the new address to another
//      worker, the owner checks the datagram it was handed and then hands the session over.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "config/server_config.h"
#include "crypto/nonce_prp.h"
#include "crypto/random.h"
#include "engine/datagram_framer.h"
#include "engine/stop_signal.h"
#include "engine/tun_sink.h"
#include "handshake/udp_server_handshake.h"
#include "server/auth_context.h"
#include "server/cookie_jar.h"
#include "server/profile_counters.h"
#include "server/roam_index.h"
#include "server/source_key.h"
#include "server/token_bucket.h"
#include "server/udp_half_open.h"
#include "server/udp_peer.h"
#include "server/verified_sources.h"
#include "transport/udp_socket.h"
#include "tunio/offload_coalesce.h"
#include "tunio/packet_batch.h"
#include "tunio/tun_device.h"
#include "tunnel/pushed_params.h"
#include "tunnel/session_end.h"
#include "wire/roam_nonce.h"
#include "wire/udp_obfs.h"

namespace qeli::server {

class UdpWorker;

/// What a UDP worker asks of its profile (ProfileRuntime; a unit test's fake). Called on
/// the worker's thread unless said otherwise.
class UdpWorkerHost {
 public:
  /// An AUTH verdict: the context (ctx.session set when admitted) and the AUTH OK to send,
  /// or nullopt when rejected (ctx.reason says why).
  using AuthDone = std::function<void(AuthContext&& ctx, std::optional<handshake::AuthOk> ok)>;

  virtual ~UdpWorkerHost() = default;
  /// The profile's per-source-IP new-session limit, asked before a new ClientHello's key
  /// agreement (false: dropped silently, counted by the worker).
  virtual bool admit_new_session(SourceKey ip, Instant now) = 0;
  /// Authenticates and admits `ctx.req` from `ctx.peer` off the worker's thread, then calls
  /// `done` exactly once, on that other thread. False when too many verifications are in
  /// flight: `done` is never called and the worker sheds the request.
  virtual bool verify_auth(AuthContext ctx, AuthDone done) = 0;
  /// A session began its data phase at `from` (`quic`: the client's envelope has the QUIC
  /// shape): counted, logged, announced.
  virtual void session_started(Session& s, const transport::SockAddr& from, bool quic) = 0;
  /// A session ended with `end` (its sender is joined): removed from the profile's table,
  /// logged with its counters, announced.
  virtual void session_ended(const std::shared_ptr<Session>& s, tunnel::SessionEnd end) = 0;
  /// An admitted session whose handshake never finished (its AUTH OK was not sent, or its
  /// half-open handshake was evicted while the verdict was on its way): removed quietly.
  virtual void release_session(const std::shared_ptr<Session>& s) = 0;
  /// The profile's worker `id` (a roaming hand-off's destination); null if there is none.
  virtual UdpWorker* worker(std::size_t id) = 0;
};

/// What a worker is, fixed for its life.
struct UdpWorkerSetup {
  std::size_t id = 0;  ///< its index among the profile's workers (hand-offs name it)
  /// The profile (MTU, obf.*, perf.*, pool, routing), borrowed for the worker's life.
  const config::ProfileConfig* profile = nullptr;
  /// The handshake every source gets: identity (borrowed), extensions, timeouts. Its
  /// `obfs` is ignored: the worker seals with its own copy of the profile's obfs key.
  handshake::UdpServerConfig handshake;
  /// The TUN queue it writes to and the lock its writers share (null: this worker is its
  /// only writer). A null device drops what would be written (tests without a TUN).
  std::unique_ptr<tunio::TunDevice> tun;
  std::mutex* tun_mu = nullptr;
  /// The listener's connection-id index, shared by the workers of one listener; null
  /// when the profile has roaming off.
  std::shared_ptr<RoamIndex> roam;
  const engine::StopSignal* stop = nullptr;  ///< the profile's (run() returns when it fires)
  ProfileCounters* counters = nullptr;       ///< the profile's
  /// The server's verification slots (AuthGuard::verify_budget, borrowed; null: none
  /// needed). A hello that finds none free is dropped silently and counted
  /// (over_capacity); its retransmit asks again.
  VerifyBudget* verify_budget = nullptr;
};

class UdpWorker {
 public:
  /// `host` must outlive the worker; `socket` is the worker's own (bound, non-blocking).
  UdpWorker(UdpWorkerHost& host, transport::UdpSocket socket, UdpWorkerSetup setup);
  ~UdpWorker();
  UdpWorker(const UdpWorker&) = delete;
  UdpWorker& operator=(const UdpWorker&) = delete;

  /// The loop (see the header), on the calling thread, until the stop signal fires; then
  /// ends every session it holds. Call once.
  void run();

  std::size_t id() const { return id_; }
  const transport::UdpSocket& socket() const { return sock_; }

  // ---- From other threads ----
  /// A datagram another worker received for one of this worker's sessions. False when
  /// it was dropped (the queue is full or this worker has stopped).
  bool post_handoff(UdpRoamHandoff h);
  /// A session that roamed onto flows the kernel hashes to this worker: taken (`peer`
  /// becomes null) unless this worker has stopped (`peer` stays the caller's).
  void post_session(std::unique_ptr<UdpPeer>& peer);

 private:
  using PeerMap =
      std::unordered_map<transport::SockAddr, std::unique_ptr<UdpPeer>, transport::SockAddrHash>;
  struct AuthVerdict {
    transport::SockAddr addr;
    std::uint64_t serial = 0;
    AuthContext ctx;
    std::optional<handshake::AuthOk> ok;
  };

  // Handshakes and sessions (udp_worker.cc)
  void receive_batch(Instant now);
  void send_to(const std::vector<Bytes>& datagrams, const transport::SockAddr& to);
  void handshake_datagram(const transport::SockAddr& addr, MutableByteSpan d, Instant now);
  handshake::HelloVerdict admit_hello(const transport::SockAddr& addr, Instant now,
                                      bool challengeable);
  void on_cookie(const transport::SockAddr& addr, std::optional<wire::Cookie> cookie, Instant now);
  void service(const transport::SockAddr& addr);
  void on_verdicts();
  void promote(const transport::SockAddr& addr, UdpHalfOpen& h, AuthContext& ctx);
  bool auth_resend(UdpPeer& pr, ByteSpan d, Instant now);
  void answer_probe(UdpPeer& pr, ByteSpan inner, Instant now);
  PeerMap::iterator end_peer(PeerMap::iterator it);
  void sweep(Instant now);
  void shut_down();

  // Roaming (udp_worker_roaming.cc)
  std::optional<wire::RoamId> roam_id_of(ByteSpan datagram) const;
  bool roam_datagram(const transport::SockAddr& from, tunio::PacketBatch& b, std::size_t i,
                     Instant now);
  bool roam_open(UdpPeer& pr, tunio::PacketBatch& b, std::size_t i, Instant now, bool& packet);
  void move_to(UdpPeer& pr, const transport::SockAddr& to, std::uint32_t epoch, std::size_t owner);
  void place(std::unique_ptr<UdpPeer> peer);
  void rekey(const transport::SockAddr& was);
  void adopt_pending();
  void handoff_to(std::size_t worker, UdpRoamHandoff h);
  void on_handoffs(Instant now);

  UdpWorkerHost& host_;
  const std::size_t id_;
  const config::ProfileConfig& p_;
  ProfileCounters& counters_;
  const engine::StopSignal& stop_;
  crypto::Rng& rng_;
  transport::UdpSocket sock_;
  std::mutex send_mu_;                     ///< held by session senders around sock_.send
  std::unique_ptr<wire::UdpObfs> obfs_;    ///< the worker thread's seal (handshakes)
  std::optional<crypto::Key32> obfs_key_;  ///< the sessions' envelope key (obfs modes)
  handshake::UdpServerConfig hc_;
  tunnel::PushedParams pushed_;
  Duration half_open_ttl_;

  PeerMap peers_;
  UdpHalfOpenTable half_open_;
  /// The sessions in peers_ (worker thread only): a RoamIndex hit is dereferenced only
  /// when it is one of them (a session being handed over is no one's for a moment).
  std::unordered_set<const UdpPeer*> owned_;
  VerifyBudget* verify_budget_;  ///< UdpWorkerSetup::verify_budget
  TokenBucket preauth_crypto_;   ///< pre-auth key agreements it may still run
  /// Return routability (docs/PROTOCOL.md §11): on with login slots and extensions.
  /// Per worker: the kernel's flow hash sends one source's datagrams to one worker.
  const bool cookies_;
  CookieJar cookie_jar_;
  VerifiedSources verified_;
  TokenBucket challenges_;  ///< cookie challenges it may still send

  engine::Notifier wake_;  ///< an AUTH verdict arrived or a sender ended
  std::mutex verdict_mu_;
  std::vector<AuthVerdict> verdicts_;  // guarded by verdict_mu_

  // Roaming (null when the profile has it off): the listener's CID index and the
  // permutation that hides a CID in a nonce (keyed by the profile's static key).
  std::shared_ptr<RoamIndex> roam_;
  std::unique_ptr<crypto::NoncePrp> roam_prp_;
  TokenBucket roam_opens_;
  std::mutex handoff_mu_;
  bool closed_ = false;                          // guarded by handoff_mu_: no more hand-offs
  std::vector<UdpRoamHandoff> handoffs_;         // guarded by handoff_mu_
  std::vector<std::unique_ptr<UdpPeer>> adopt_;  // guarded by handoff_mu_
  engine::Notifier handoff_wake_;                ///< hand-offs or sessions arrived

  // The receive path (worker thread; allocated once).
  std::unique_ptr<tunio::TunDevice> tun_dev_;
  engine::TunWriter tun_;
  tunnel::SessionCounters tun_counters_;  ///< TUN write drops of this worker's queue
  engine::DatagramSource source_;
  tunio::PacketBatch batch_;
  tunio::PacketBatch one_;  ///< a handed-over datagram
  std::vector<bool> keep_;
  tunio::GroOptions gro_;
  tunio::GroTable gro_table_;
};

}  // namespace qeli::server
