// Issuing a qeli:// link for a user (add-client --link, share-link): which profile it is
// for, the host clients dial, the profile's public key, then the link and its QR code.
#pragma once

#include <string>
#include <vector>

#include "cli/cli.h"
#include "config/link_plan.h"
#include "config/server_config.h"

namespace qeli::cli {

struct LinkOptions {
  std::string host;          ///< HOST or HOST:PORT clients dial; empty: [web] public_host
  std::string profile;       ///< empty: the first of `allowed`, else the first enabled profile
  std::string label;         ///< empty: USER@PROFILE
  std::string identity_dir;  ///< empty: the config's auth.identity_dir (the server's)
  bool no_qr = false;
  bool qr_invert = false;
};

using config::LinkPlan;

/// Picks the profile (one `user` may use: `allowed` empty = all) and checks the host
/// (config/link_plan.h); prints why not and returns false.
bool plan_link(const config::ServerConfig& cfg, const std::string& user,
               const std::vector<std::string>& allowed, const LinkOptions& o, Context& ctx,
               LinkPlan& plan);

/// Reads the profile's identity key and puts its public half into the plan. With
/// `create` (add-client on a fresh setup) a missing key is generated as the server would
/// at its first start; without (share-link) a missing key is an error naming the path and
/// --identity-dir, never a new key the running server does not use. The directory is
/// `o.identity_dir`, else `cfg`'s auth.identity_dir. False (printed) on failure.
bool load_link_key(const LinkOptions& o, const config::ServerConfig& cfg, Context& ctx,
                   LinkPlan& plan, bool create);

/// Prints the link for `user` / `password` and, unless no_qr, its QR code.
void print_link(const LinkOptions& o, LinkPlan plan, const std::string& user,
                const std::string& password, Context& ctx);

}  // namespace qeli::cli
