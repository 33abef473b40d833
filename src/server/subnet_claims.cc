#include "server/subnet_claims.h"

#include <algorithm>
#include <mutex>

namespace qeli::server {
namespace {

template <class Entries, class Cidr>
void claim_into(Entries& entries, const std::shared_ptr<Session>& s, const std::vector<Cidr>& want,
                HostSubnetRoutes* host, std::vector<Cidr>& took, std::size_t& skipped) {
  for (const Cidr& c : want) {
    const auto held =
        std::find_if(entries.begin(), entries.end(), [&](const auto& e) { return e.cidr == c; });
    if (held == entries.end()) {
      entries.push_back({c, s, host});
      took.push_back(c);
    } else if (held->session != s) {
      ++skipped;
    }
  }
}

template <class Entries, class Cidr>
HostSubnetRoutes* release_from(Entries& entries, const Session* s, std::vector<Cidr>& gave) {
  HostSubnetRoutes* host = nullptr;
  for (auto it = entries.begin(); it != entries.end();) {
    if (it->session.get() == s) {
      gave.push_back(it->cidr);
      host = it->host;
      it = entries.erase(it);
    } else {
      ++it;
    }
  }
  return host;
}

/// The entry whose network holds `dst` with the longest prefix, or null.
template <class Entries, class Addr>
const typename Entries::value_type* longest_match(const Entries& entries, const Addr& dst) {
  const typename Entries::value_type* best = nullptr;
  for (const auto& e : entries) {
    if ((best == nullptr || e.cidr.prefix > best->cidr.prefix) && e.cidr.contains(dst)) best = &e;
  }
  return best;
}

}  // namespace

SubnetClaims::Claimed SubnetClaims::claim(const std::shared_ptr<Session>& s,
                                          const std::vector<config::Ipv4Cidr>& v4,
                                          const std::vector<config::Ipv6Cidr>& v6,
                                          HostSubnetRoutes* host) {
  Claimed took;
  if (v4.empty() && v6.empty()) return took;
  std::unique_lock lock(mu_);
  claim_into(v4_, s, v4, host, took.v4, took.skipped);
  claim_into(v6_, s, v6, host, took.v6, took.skipped);
  count_.store(v4_.size() + v6_.size(), std::memory_order_release);
  if (host != nullptr && !took.empty()) host->add(took);
  return took;
}

SubnetClaims::Claimed SubnetClaims::release(const Session* s) {
  Claimed gave;
  if (empty()) return gave;
  std::unique_lock lock(mu_);
  HostSubnetRoutes* h4 = release_from(v4_, s, gave.v4);
  HostSubnetRoutes* h6 = release_from(v6_, s, gave.v6);
  count_.store(v4_.size() + v6_.size(), std::memory_order_release);
  // One session's networks all route into its own profile's TUN.
  if (HostSubnetRoutes* host = h4 != nullptr ? h4 : h6; host != nullptr && !gave.empty()) {
    host->remove(gave);
  }
  return gave;
}

std::shared_ptr<Session> SubnetClaims::find4(std::uint32_t dst) const {
  if (empty()) return nullptr;
  std::shared_lock lock(mu_);
  const auto* e = longest_match(v4_, config::Ipv4Addr{dst});
  return e != nullptr ? e->session : nullptr;
}

std::shared_ptr<Session> SubnetClaims::find6(const std::uint8_t* dst) const {
  if (empty()) return nullptr;
  std::shared_lock lock(mu_);
  const auto* e = longest_match(v6_, dst);
  return e != nullptr ? e->session : nullptr;
}

bool SubnetClaims::held_by_other4(std::uint32_t dst, const Session* self) const {
  if (empty()) return false;
  std::shared_lock lock(mu_);
  const auto* e = longest_match(v4_, config::Ipv4Addr{dst});
  return e != nullptr && e->session.get() != self;
}

bool SubnetClaims::held_by_other6(const std::uint8_t* dst, const Session* self) const {
  if (empty()) return false;
  std::shared_lock lock(mu_);
  const auto* e = longest_match(v6_, dst);
  return e != nullptr && e->session.get() != self;
}

}  // namespace qeli::server
