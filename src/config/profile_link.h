// Building the qeli:// link a client needs for one server profile (reference §6.2): the
// profile decides proto, mode, SNI, REALITY short id, obfs key/fronting, QUIC and AWG;
// the caller supplies the address clients dial, the credentials and the pinned key.
#pragma once

#include <cstdint>
#include <string>

#include "config/link.h"
#include "config/server_config.h"

namespace qeli::config {

struct LinkTarget {
  std::string host;        // what clients dial (name or IPv4); IPv6 is refused by links
  std::uint16_t port = 0;  // 0 = the profile's bind.port
  std::string user;
  std::string pass;
  std::string server_key_hex;  // the profile's public key, 64 hex
  std::string label;
  /// The user's own REALITY short id (reality_short_ids); empty = the profile's first.
  std::string reality_short_id;
};

/// The link for `profile`, in 0.7.16's shape. `sni` is written for the TLS-shaped modes
/// only, `rsid` is the first short id whenever the REALITY proxy is on, the mode is
/// `fake-tls` for a REALITY profile without real TLS (never `reality`, which 0.7.16
/// clients refuse), the AWG block only when enabled.
ShareLink link_for_profile(const ProfileConfig& profile, const LinkTarget& target);

}  // namespace qeli::config
