// SubnetClaims: the networks behind connected clients (a user's `client_subnet`, OpenVPN's
// "iroute"; qeli 0.7.16 §5.6) and which session each one is routed into. A session claims
// its user's networks when it is admitted and gives them back when it ends; a network
// another live session already claimed stays with that one (the first claimant wins, as in
// 0.7.16), and overlapping networks of different sessions are told apart by the longest
// prefix. The TUN reader asks here only after the pool's by-address map missed.
//
// The lists are admin-configured and short (a handful per profile), so lookups scan them:
// no allocation, no hashing, on the TUN reader's path.
// Threading: none of its own; SessionTable guards it with its routing lock.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "config/server_config.h"
#include "server/session.h"

namespace qeli::server {

class SubnetClaims {
 public:
  /// What claim() took for one session (for its log line and the host's routes).
  struct Claimed {
    std::vector<config::Ipv4Cidr> v4;
    std::vector<config::Ipv6Cidr> v6;
    std::size_t skipped = 0;  ///< networks another session holds (claim() only)
    bool empty() const { return v4.empty() && v6.empty(); }
  };

  /// Claims every network of `v4` and `v6` for `s` that no other session claimed (an
  /// identical network; a wider or narrower one may coexist). Returns what it took.
  Claimed claim(const std::shared_ptr<Session>& s, const std::vector<config::Ipv4Cidr>& v4,
                const std::vector<config::Ipv6Cidr>& v6);
  /// Gives back everything `s` claimed; returns it.
  Claimed release(const Session* s);

  /// The session whose claimed network holds `dst` (host order) with the longest prefix;
  /// null if none.
  Session* find4(std::uint32_t dst) const;
  /// The same for the 16 bytes at `dst`.
  Session* find6(const std::uint8_t* dst) const;

  bool empty() const { return v4_.empty() && v6_.empty(); }

 private:
  template <class Cidr>
  struct Entry {
    Cidr cidr;
    std::shared_ptr<Session> session;
  };
  std::vector<Entry<config::Ipv4Cidr>> v4_;
  std::vector<Entry<config::Ipv6Cidr>> v6_;
};

/// The host's side of the claims: a claimed network must reach the profile's TUN (a
/// route `<network> dev <tun>`), and a network given back must not. SessionTable calls
/// it under its admission lock, so calls never overlap and follow the claims' order.
class HostSubnetRoutes {
 public:
  virtual ~HostSubnetRoutes() = default;
  virtual void add(const SubnetClaims::Claimed& c) = 0;
  virtual void remove(const SubnetClaims::Claimed& c) = 0;
};

}  // namespace qeli::server
