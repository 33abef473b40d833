#include "server/destination_acl.h"

#include <algorithm>

namespace qeli::server {

DestinationAcl::DestinationAcl(std::vector<config::Ipv4Cidr> networks,
                               std::vector<config::Ipv6Cidr> networks6)
    : networks_(std::move(networks)), networks6_(std::move(networks6)) {}

DestinationAcl DestinationAcl::for_user(const config::UserConfig* user,
                                        const config::GroupConfig* group) {
  if (user != nullptr && (!user->allowed_networks.empty() || !user->allowed_networks6.empty())) {
    return DestinationAcl(user->allowed_networks, user->allowed_networks6);
  }
  if (group != nullptr) return DestinationAcl(group->allowed_networks, group->allowed_networks6);
  return {};
}

bool DestinationAcl::allows(std::uint32_t dst) const {
  // A handful of networks per user: a linear scan beats any index here.
  return unrestricted() ||
         std::any_of(networks_.begin(), networks_.end(),
                     [dst](const config::Ipv4Cidr& n) { return n.contains({dst}); });
}

bool DestinationAcl::allows6(const std::uint8_t* dst) const {
  return unrestricted() ||
         std::any_of(networks6_.begin(), networks6_.end(),
                     [dst](const config::Ipv6Cidr& n) { return n.contains(dst); });
}

}  // namespace qeli::server
