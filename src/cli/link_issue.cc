#include "cli/link_issue.h"

#include <algorithm>
#include <filesystem>
#include <ostream>

#include "base/bytes.h"
#include "cli/provisioning.h"
#include "cli/terminal_qr.h"
#include "config/identity_store.h"
#include "config/link.h"
#include "config/values.h"

namespace qeli::cli {
namespace {

bool allowed_on(const std::vector<std::string>& profiles, const std::string& name) {
  return profiles.empty() || std::find(profiles.begin(), profiles.end(), name) != profiles.end();
}

}  // namespace

bool plan_link(const config::ServerConfig& cfg, const std::string& user,
               const std::vector<std::string>& allowed, const LinkOptions& o, Context& ctx,
               LinkPlan& plan) {
  if (o.host.empty()) {
    ctx.err << "a link needs --host H[:P] (the address clients dial)\n";
    return false;
  }
  std::string name = o.profile;
  if (name.empty() && !allowed.empty()) name = allowed.front();
  if (name.empty()) {
    for (const auto& p : cfg.profiles) {
      if (p.enabled) {
        name = p.name;
        break;
      }
    }
  }
  plan.profile = cfg.find_profile(name);
  if (plan.profile == nullptr || !allowed_on(allowed, name)) {
    ctx.err << "--link-profile " << name << " is not a profile this user may use\n";
    return false;
  }
  auto& target = plan.target;
  bool bracketed = false;
  if (!o.host.empty() && o.host.front() == '[' && o.host.back() == ']') {
    target.host = o.host.substr(1, o.host.size() - 2);  // [v6] without a port
    bracketed = true;
  } else if (o.host.find(':') != std::string::npos) {
    const auto ep = config::Endpoint::parse(o.host);
    if (!ep) {
      ctx.err << "--host " << o.host << " is not HOST[:PORT] or [IPv6][:PORT]\n";
      return false;
    }
    target.host = ep->host;
    target.port = ep->port;
    bracketed = ep->bracketed;
  } else {
    target.host = o.host;
  }
  if (bracketed && !config::is_ipv6_literal(target.host)) {
    ctx.err << "--host " << o.host << ": brackets hold an [IPv6] address only\n";
    return false;
  }
  target.label = o.label.empty() ? user + "@" + name : o.label;
  // The link must be one a client accepts: check the host the same way a client will.
  config::ShareLink probe;
  probe.host = target.host;
  probe.port = 1;
  if (!config::parse_link(config::emit_link(probe)).ok()) {
    ctx.err << "--host " << o.host << " is not a valid host name, IPv4 or [IPv6] address\n";
    return false;
  }
  return true;
}

bool load_link_key(const LinkOptions& o, const config::ServerConfig& cfg, Context& ctx,
                   LinkPlan& plan, bool create) {
  const std::string dir = identity_dir_for(o.identity_dir, cfg);
  if (!create) {
    const std::string path = plan.profile->identity_key.empty()
                                 ? dir + "/" + plan.profile->name + ".key"
                                 : plan.profile->identity_key;
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
      ctx.err << "profile " << plan.profile->name << ": no identity key at " << path
              << " (the server creates it when it first starts; give the server's "
                 "--identity-dir)\n";
      return false;
    }
  }
  config::IdentityStore store(dir, ctx.rng);
  auto id = store.load_or_create(plan.profile->name, plan.profile->identity_key);
  if (!id) {
    ctx.err << "profile " << plan.profile->name << ": " << id.error().detail << "\n";
    return false;
  }
  plan.target.server_key_hex = to_hex(id->public_key);
  return true;
}

void print_link(const LinkOptions& o, LinkPlan plan, const std::string& user,
                const std::string& password, Context& ctx) {
  plan.target.user = user;
  plan.target.pass = password;
  const std::string link = config::emit_link(config::link_for_profile(*plan.profile, plan.target));
  ctx.out << "\nLink for profile " << plan.profile->name
          << " (it contains the password: share it privately):\n"
          << link << "\n";
  if (o.no_qr) return;
  if (const auto m = qr_matrix(link)) {
    ctx.out << "\n" << render_qr(*m, o.qr_invert);
  } else {
    ctx.err << "link too long for a QR code\n";
  }
}

}  // namespace qeli::cli
