// Planning a qeli:// link for a user of this server (add-client --link, share-link,
// add-device and the panel's device links): which profile it is for and the host clients
// dial, checked the way a client will parse them. The caller then adds the profile's
// public key and the credentials (config/profile_link.h builds the link).
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "config/profile_link.h"
#include "config/server_config.h"

namespace qeli::config {

struct LinkRequest {
  std::string host;     ///< HOST, HOST:PORT, [IPv6] or [IPv6]:PORT clients dial (required)
  std::string profile;  ///< empty: the first of `allowed`, else the first enabled profile
  std::string label;    ///< empty: USER@PROFILE
  /// The user's own REALITY short id (reality_short_ids); empty = the profile's first.
  std::string reality_short_id;
};

struct LinkPlan {
  const ProfileConfig* profile = nullptr;  ///< points into the ServerConfig planned from
  LinkTarget target;  ///< host, port, label, short id; no key or credentials yet
};

/// The plan for `user`, who may use the profiles `allowed` (empty = all). Error: one
/// sentence naming the offending value (no host, a profile the user may not use, a host
/// a client would not accept).
Result<LinkPlan, std::string> plan_link(const ServerConfig& cfg, const std::string& user,
                                        const std::vector<std::string>& allowed,
                                        const LinkRequest& request);

}  // namespace qeli::config
