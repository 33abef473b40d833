#include "server/user_info.h"

namespace qeli::server {

control::UserInfo user_info(const config::UserConfig& u) {
  control::UserInfo i;
  i.name = u.name;
  i.source_file = u.source_file;
  i.enabled = u.enabled;
  i.group = u.group;
  if (u.static_ip) i.static_ip = u.static_ip->to_string();
  i.max_sessions = u.max_sessions;
  i.profiles = u.profiles;
  for (const auto& r : u.routes) i.routes.push_back(r.to_string());
  for (const auto& r : u.routes6) i.routes.push_back(r.to_string());
  for (const auto& n : u.allowed_networks) i.allowed_networks.push_back(n.to_string());
  for (const auto& n : u.allowed_networks6) i.allowed_networks.push_back(n.to_string());
  for (const auto& n : u.client_subnets) i.client_subnets.push_back(n.to_string());
  for (const auto& n : u.client_subnets6) i.client_subnets.push_back(n.to_string());
  i.bandwidth_limit_mbps = u.bandwidth_limit_mbps;
  i.data_limit_gb = u.data_limit_gb;
  i.expire_at = u.expire_at;
  for (const auto& [k, v] : u.metadata) i.metadata.emplace_back(k, v);
  for (const auto& d : u.devices) i.devices.push_back({d.id, d.name});
  return i;
}

}  // namespace qeli::server
