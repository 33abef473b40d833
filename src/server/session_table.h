// SessionTable: a profile's live sessions, its IP pool and the routing map from tunnel
// address to session. Admission follows qeli 0.7.16 (§3.4 "Session admission"):
//
//   1. a live session with the same device key is superseded (its address is reused);
//   2. a static address (user `static_ip` / `pool.reservation.<user>`) is taken from
//      whoever holds it (that session is kicked);
//   3. `max_sessions` for the user (0 = unlimited): the user's OLDEST other device goes;
//   4. `max_clients` for the profile is checked last;
//   5. otherwise the pool allocates (sticky per device key);
//   6. the session claims its user's `client_subnet`s (server/subnet_claims.h) and the
//      host routes them to the TUN (HostSubnetRoutes), until it ends or is superseded.
//
// Thread-safe: one mutex for admission and removal; the routing map is read under a
// shared lock once per TUN batch.
//
// Traffic totals: every admitted session is counted until remove() folds its counters
// into the table's retired totals, under the same mutex that traffic_totals() reads
// under, so a total never goes down when a session ends (a Prometheus counter must not).
#pragma once

#include <array>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/result.h"
#include "handshake/types.h"
#include "server/ip_pool.h"
#include "server/session.h"
#include "server/subnet_claims.h"

namespace qeli::server {

struct AdmissionRequest {
  std::string user;
  std::string device_key;
  std::optional<std::uint32_t> static_ip;
  std::uint32_t max_sessions = 0;  ///< 0 = unlimited
  transport::SockAddr peer;
  std::size_t max_streams = 1;  ///< stream bonding's cap (1 = no bonding)
  /// The user's `client_subnet`s, claimed for the session (first claimant wins).
  std::vector<config::Ipv4Cidr> subnets;
  std::vector<config::Ipv6Cidr> subnets6;
};

/// The downlink's routing map by tunnel address, read by the TUN readers under
/// SessionTable's shared routing lock (the networks behind clients: SubnetClaims).
struct SessionRoutes {
  std::unordered_map<std::uint32_t, std::shared_ptr<Session>> by_ip;
};

enum class AdmissionError { kPoolExhausted, kMaxClients, kBadStaticIp, kStopping };

/// Told when a client address starts and stops being routed to a session (host order);
/// called under the table's lock, in order, never per packet. The NDP proxy
/// (server/ndp_proxy_runtime.h) answers for the IPv6 twin of each.
class RoutedAddressObserver {
 public:
  virtual ~RoutedAddressObserver() = default;
  virtual void routed(std::uint32_t ip) = 0;
  virtual void unrouted(std::uint32_t ip) = 0;
};
const char* to_string(AdmissionError e);

class SessionTable {
 public:
  SessionTable(IpPool pool, std::size_t max_clients, engine::SessionInbox::Geometry geometry);

  /// The server's client_subnet table (shared by every profile; default: one of the
  /// table's own) and where this profile's claims are routed on the host (its TUN; null,
  /// the default: nowhere, as in unit tests). Borrowed; set before the first admit().
  void set_subnets(SubnetClaims* claims, HostSubnetRoutes* host) {
    claims_ = claims != nullptr ? claims : &own_claims_;
    host_routes_ = host;
  }
  const SubnetClaims& claims() const { return *claims_; }
  /// Who hears of routed addresses (null, the default: nobody). Borrowed; set before the
  /// first admit() and kept until the table is gone or stop_all() returned.
  void set_address_observer(RoutedAddressObserver* o) { addresses_ = o; }

  /// Admits a session (see the header comment). The returned session is registered for
  /// routing at once. Superseded/evicted sessions are signalled to stop.
  Result<std::shared_ptr<Session>, AdmissionError> admit(const AdmissionRequest& req);

  /// Makes `s` findable by its JOIN token (stream bonding, 0.7.16 §3.8) — once its
  /// AUTH OK is about to carry the token and everything a JOINed stream uses is set.
  void publish_join(const std::shared_ptr<Session>& s, const handshake::JoinToken& token);
  /// The live session a JOIN's token names, or null (unknown, ended or superseded).
  std::shared_ptr<Session> find_join(const handshake::JoinToken& token) const;

  /// Removes `s` (when its connection ends); releases its address unless superseded.
  void remove(const std::shared_ptr<Session>& s);

  /// Looks up sessions for a batch of destinations under one shared lock.
  template <class F>
  void with_routes(F&& f) const {
    std::shared_lock lock(routes_mu_);
    f(routes_);
  }

  std::vector<std::shared_ptr<Session>> list() const;
  /// Ends every session of `user` for `why` (the client is told, if it can hear it);
  /// returns how many.
  std::size_t kick(const std::string& user, wire::CloseReason why = wire::CloseReason::kKicked);
  /// Stops every session and refuses every later admit() (kStopping), so a login that
  /// completes while the profile shuts down cannot start a session nobody will stop.
  void stop_all();
  std::size_t size() const;

  /// Per counter (tunnel::SessionCounter order): the sum over the sessions removed so far
  /// and those still counted (admitted, not yet removed — superseded ones included).
  /// Monotonic. Reads relaxed atomics: the data plane is never stopped.
  std::array<std::uint64_t, tunnel::SessionCounters::kSize> traffic_totals() const;

 private:
  void unroute_locked(const std::shared_ptr<Session>& s);

  mutable std::mutex mu_;
  IpPool pool_;
  std::size_t max_clients_;
  engine::SessionInbox::Geometry geometry_;
  std::uint64_t next_id_ = 1;
  bool stopping_ = false;  ///< set by stop_all(), under mu_
  std::unordered_map<std::string, std::shared_ptr<Session>> by_device_;
  /// Admitted and not yet removed, by id (by_device_ forgets superseded sessions early).
  std::unordered_map<std::uint64_t, std::shared_ptr<Session>> counted_;
  std::array<std::uint64_t, tunnel::SessionCounters::kSize> retired_{};
  mutable std::shared_mutex routes_mu_;
  SessionRoutes routes_;
  SubnetClaims own_claims_;
  SubnetClaims* claims_ = &own_claims_;
  HostSubnetRoutes* host_routes_ = nullptr;
  RoutedAddressObserver* addresses_ = nullptr;
  /// JOIN token (as bytes) → session; guarded by mu_.
  std::unordered_map<std::string, std::shared_ptr<Session>> by_token_;
};

}  // namespace qeli::server
