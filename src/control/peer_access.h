// Who may use the control socket, decided from the caller's peer credentials
// (SO_PEERCRED: the kernel's word for the connecting process's uid/gid/pid, which a
// caller cannot forge):
//
//   root, or the server's own uid        every permission
//   the panel's uid ([web] user)          every permission (the panel applies its own
//                                         roles to its admins before it calls)
//   a member of the operator group        read + operate (list, kick, disable, unblock);
//   (`qeli` by default)                   changing users or the config needs root
//   anyone else                           nothing: the request is refused
//
// The socket file itself is 0660 root:<operator group> inside a 0750 directory when that
// group exists, else 0600 inside 0700, so the file mode and this check agree.
#pragma once

#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>

#include "control/api.h"

namespace qeli::control {

inline constexpr char kOperatorGroup[] = "qeli";

struct PeerCred {
  std::uint32_t uid = 0, gid = 0;
  std::int32_t pid = 0;
};

struct AccessPolicy {
  std::uint32_t server_uid = 0;            ///< geteuid() of the server
  std::optional<std::uint32_t> panel_uid;  ///< the panel's account, if one runs
  std::optional<std::uint32_t> operator_gid;
  /// True if `uid` (whose primary gid is `gid`) is a member of group `group_gid`;
  /// defaults to the system's group database (getgrouplist).
  std::function<bool(std::uint32_t uid, std::uint32_t gid, std::uint32_t group_gid)> member_of;
};

/// The policy for this host: the operator group looked up by name (absent = none).
AccessPolicy host_access_policy(std::optional<std::uint32_t> panel_uid);

Permissions permissions_for(const PeerCred& peer, const AccessPolicy& policy);

/// "read,operate" for messages and whoami.
std::vector<std::string> permission_names(Permissions p);

/// uid of a user name / gid of a group name from the system databases.
std::optional<std::uint32_t> lookup_uid(const std::string& user);
std::optional<std::uint32_t> lookup_gid(const std::string& group);

}  // namespace qeli::control
