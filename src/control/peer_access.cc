#include "control/peer_access.h"

#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <vector>

namespace qeli::control {
namespace {

bool system_member_of(std::uint32_t uid, std::uint32_t gid, std::uint32_t group_gid) {
  if (gid == group_gid) return true;
  std::vector<char> buf(16384);
  passwd pw{};
  passwd* found = nullptr;
  if (getpwuid_r(uid, &pw, buf.data(), buf.size(), &found) != 0 || found == nullptr) return false;
  int n = 64;
  std::vector<gid_t> groups(static_cast<std::size_t>(n));
  if (getgrouplist(pw.pw_name, gid, groups.data(), &n) < 0) {
    groups.resize(static_cast<std::size_t>(n));
    if (getgrouplist(pw.pw_name, gid, groups.data(), &n) < 0) return false;
  }
  for (int i = 0; i < n; ++i) {
    if (groups[static_cast<std::size_t>(i)] == group_gid) return true;
  }
  return false;
}

}  // namespace

std::optional<std::uint32_t> lookup_uid(const std::string& user) {
  std::vector<char> buf(16384);
  passwd pw{};
  passwd* found = nullptr;
  if (getpwnam_r(user.c_str(), &pw, buf.data(), buf.size(), &found) != 0 || found == nullptr) {
    return std::nullopt;
  }
  return pw.pw_uid;
}

std::optional<std::uint32_t> lookup_gid(const std::string& group) {
  std::vector<char> buf(16384);
  struct group gr {};
  struct group* found = nullptr;
  if (getgrnam_r(group.c_str(), &gr, buf.data(), buf.size(), &found) != 0 || found == nullptr) {
    return std::nullopt;
  }
  return gr.gr_gid;
}

AccessPolicy host_access_policy(std::optional<std::uint32_t> panel_uid) {
  AccessPolicy p;
  p.server_uid = ::geteuid();
  p.panel_uid = panel_uid;
  p.operator_gid = lookup_gid(kOperatorGroup);
  return p;
}

Permissions permissions_for(const PeerCred& peer, const AccessPolicy& policy) {
  if (peer.uid == 0 || peer.uid == policy.server_uid) return kAllPermissions;
  if (policy.panel_uid && peer.uid == *policy.panel_uid) return kAllPermissions;
  if (policy.operator_gid) {
    const auto& member = policy.member_of ? policy.member_of : system_member_of;
    if (member(peer.uid, peer.gid, *policy.operator_gid)) {
      return static_cast<Permissions>(static_cast<std::uint8_t>(Permission::kRead) |
                                      static_cast<std::uint8_t>(Permission::kOperate));
    }
  }
  return 0;
}

std::vector<std::string> permission_names(Permissions p) {
  std::vector<std::string> out;
  if (allows(p, Permission::kRead)) out.emplace_back("read");
  if (allows(p, Permission::kOperate)) out.emplace_back("operate");
  if (allows(p, Permission::kManage)) out.emplace_back("manage");
  return out;
}

}  // namespace qeli::control
