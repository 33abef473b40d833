#include "server/destination_acl.h"

#include <algorithm>

namespace qeli::server {

DestinationAcl::DestinationAcl(std::vector<config::Ipv4Cidr> networks)
    : networks_(std::move(networks)) {}

DestinationAcl DestinationAcl::for_user(const config::UserConfig* user,
                                        const config::GroupConfig* group) {
  if (user != nullptr && !user->allowed_networks.empty()) {
    return DestinationAcl(user->allowed_networks);
  }
  if (group != nullptr) return DestinationAcl(group->allowed_networks);
  return {};
}

bool DestinationAcl::allows(std::uint32_t dst) const {
  // A handful of networks per user: a linear scan beats any index here.
  return networks_.empty() ||
         std::any_of(networks_.begin(), networks_.end(),
                     [dst](const config::Ipv4Cidr& n) { return n.contains({dst}); });
}

}  // namespace qeli::server
