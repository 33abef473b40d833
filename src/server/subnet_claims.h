// SubnetClaims: the networks behind connected clients (a user's `client_subnet`, OpenVPN's
// "iroute"; qeli 0.7.16 §5.6) and which session each one is routed into — one table for
// the whole server, because the host has one routing table for all profiles' TUNs. A
// session claims its user's networks when it is admitted and gives them back when it
// ends; a network another live session already holds stays with that one (the first
// claimant wins, as in 0.7.16, and keeps it until its session ends: nobody inherits it),
// and overlapping networks of different sessions are told apart by the longest prefix.
//
// The host side (HostSubnetRoutes: `<network> dev <tun>` on the claimant's profile's TUN)
// changes under the table's own lock, so routes follow the claims' order across profiles.
// The TUN readers ask here only after their pool's by-address map missed, and only while
// something is claimed (an atomic count): no lock and no scan for servers that use none.
// The lists are admin-configured and short, so lookups scan them: nothing is allocated.
// Thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <shared_mutex>
#include <vector>

#include "config/server_config.h"
#include "server/session.h"

namespace qeli::server {

/// The host's side of the claims: a claimed network must reach the claimant's TUN (a
/// route `<network> dev <tun>`), and a network given back must not.
class HostSubnetRoutes;

class SubnetClaims {
 public:
  /// Networks of one family each.
  struct Claimed {
    std::vector<config::Ipv4Cidr> v4;
    std::vector<config::Ipv6Cidr> v6;
    std::size_t skipped = 0;  ///< networks another session holds (claim() only)
    bool empty() const { return v4.empty() && v6.empty(); }
  };

  /// Claims every network of `v4` and `v6` for `s` that no other session holds (an
  /// identical network; a wider or narrower one may coexist) and routes them into `host`
  /// (null: nowhere, as in unit tests). Returns what it took.
  Claimed claim(const std::shared_ptr<Session>& s, const std::vector<config::Ipv4Cidr>& v4,
                const std::vector<config::Ipv6Cidr>& v6, HostSubnetRoutes* host);
  /// Gives back everything `s` holds and unroutes it; returns it.
  Claimed release(const Session* s);

  /// The session whose network holds `dst` (host order) with the longest prefix, or null.
  std::shared_ptr<Session> find4(std::uint32_t dst) const;
  /// The same for the 16 bytes at `dst`.
  std::shared_ptr<Session> find6(const std::uint8_t* dst) const;
  /// Whether `dst` lies in a network held by a session other than `self` (the uplink's
  /// client_to_client rule).
  bool held_by_other4(std::uint32_t dst, const Session* self) const;
  bool held_by_other6(const std::uint8_t* dst, const Session* self) const;

  /// Nothing claimed (lock-free: what the per-packet paths check first).
  bool empty() const { return count_.load(std::memory_order_acquire) == 0; }

 private:
  template <class Cidr>
  struct Entry {
    Cidr cidr;
    std::shared_ptr<Session> session;
    HostSubnetRoutes* host;
  };
  mutable std::shared_mutex mu_;
  std::vector<Entry<config::Ipv4Cidr>> v4_;
  std::vector<Entry<config::Ipv6Cidr>> v6_;
  std::atomic<std::size_t> count_{0};
};

class HostSubnetRoutes {
 public:
  virtual ~HostSubnetRoutes() = default;
  /// Called under SubnetClaims' lock: calls never overlap and follow the claims' order.
  virtual void add(const SubnetClaims::Claimed& c) = 0;
  virtual void remove(const SubnetClaims::Claimed& c) = 0;
};

}  // namespace qeli::server
