#include "server/subnet_claims.h"

#include <algorithm>

namespace qeli::server {
namespace {

template <class Entries, class Cidr>
void claim_into(Entries& entries, const std::shared_ptr<Session>& s, const std::vector<Cidr>& want,
                std::vector<Cidr>& took, std::size_t& skipped) {
  for (const Cidr& c : want) {
    const auto held =
        std::find_if(entries.begin(), entries.end(), [&](const auto& e) { return e.cidr == c; });
    if (held == entries.end()) {
      entries.push_back({c, s});
      took.push_back(c);
    } else if (held->session != s) {
      ++skipped;
    }
  }
}

template <class Entries, class Cidr>
void release_from(Entries& entries, const Session* s, std::vector<Cidr>& gave) {
  for (auto it = entries.begin(); it != entries.end();) {
    if (it->session.get() == s) {
      gave.push_back(it->cidr);
      it = entries.erase(it);
    } else {
      ++it;
    }
  }
}

template <class Entries, class Addr>
Session* longest_match(const Entries& entries, const Addr& dst) {
  Session* best = nullptr;
  int best_prefix = -1;
  for (const auto& e : entries) {
    if (e.cidr.prefix > best_prefix && e.cidr.contains(dst)) {
      best = e.session.get();
      best_prefix = e.cidr.prefix;
    }
  }
  return best;
}

}  // namespace

SubnetClaims::Claimed SubnetClaims::claim(const std::shared_ptr<Session>& s,
                                          const std::vector<config::Ipv4Cidr>& v4,
                                          const std::vector<config::Ipv6Cidr>& v6) {
  Claimed took;
  claim_into(v4_, s, v4, took.v4, took.skipped);
  claim_into(v6_, s, v6, took.v6, took.skipped);
  return took;
}

SubnetClaims::Claimed SubnetClaims::release(const Session* s) {
  Claimed gave;
  release_from(v4_, s, gave.v4);
  release_from(v6_, s, gave.v6);
  return gave;
}

Session* SubnetClaims::find4(std::uint32_t dst) const {
  return longest_match(v4_, config::Ipv4Addr{dst});
}

Session* SubnetClaims::find6(const std::uint8_t* dst) const { return longest_match(v6_, dst); }

}  // namespace qeli::server
