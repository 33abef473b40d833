// The server's one call into sys/privilege.h: after every profile serves and the
// control socket listens, become `options.run_as` with CAP_NET_ADMIN only (what is
// left to do with privilege: removing the NAT tables at stop, netlink changes on
// reload). docs/OPERATIONS.md "Privileges" explains the choice.
#pragma once

#include <string>

#include "base/result.h"
#include "config/server_config.h"
#include "server/server.h"

namespace qeli::server {

/// Drops, logs what the process kept, and warns about each file a later SIGHUP must
/// read but the new user cannot. Error: the drop failed (the caller stops).
Status<std::string> drop_startup_privileges(const ServerOptions& options,
                                            const config::ServerConfig& cfg);

}  // namespace qeli::server
