// Before a daemon touches the host: does this process hold the privileges it needs? A
// run without them otherwise fails deep inside with a bare "Permission denied" (the
// trial). The answer names each missing capability, what it is for, and how to get it.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace qeli::sys {

struct PrivilegeNeed {
  int capability;   ///< CAP_* value
  std::string why;  ///< "create the TUN device, routes and the kill switch"
};

/// True if the calling thread has `capability` in its effective set.
bool has_capability(int capability);

/// nullopt when every need is met; else one message for all that are missing, e.g.
/// "qeli client needs CAP_NET_ADMIN to create the TUN device …; this process (uid 1000)
/// does not have it: run it as root (sudo), … (systemd: AmbientCapabilities=CAP_NET_ADMIN)".
std::optional<std::string> missing_privileges(const std::string& what,
                                              const std::vector<PrivilegeNeed>& needs);

/// A directory the process must write (state, identity keys): nullopt if it can (or if
/// it does not exist yet but its nearest existing parent is writable), else a message.
std::optional<std::string> unwritable_directory(const std::string& dir, const std::string& why);

}  // namespace qeli::sys
