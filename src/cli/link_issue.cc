#include "cli/link_issue.h"

#include <filesystem>
#include <ostream>

#include "base/bytes.h"
#include "cli/provisioning.h"
#include "cli/terminal_qr.h"
#include "config/identity_store.h"
#include "config/link.h"

namespace qeli::cli {
bool plan_link(const config::ServerConfig& cfg, const std::string& user,
               const std::vector<std::string>& allowed, const LinkOptions& o, Context& ctx,
               LinkPlan& plan) {
  // No --host: [web] public_host, the address the panel's links use (as 0.7.16 falls back).
  const std::string& host = o.host.empty() ? cfg.web.public_host : o.host;
  if (host.empty()) {
    ctx.err << "no host for the link: pass --host HOST[:PORT] or set [web] public_host\n";
    return false;
  }
  auto planned = config::plan_link(cfg, user, allowed, {host, o.profile, o.label, {}});
  if (!planned.ok()) {
    ctx.err << planned.error() << "\n";
    return false;
  }
  plan = std::move(*planned);
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
  if (const auto m = qr::encode(link)) {
    ctx.out << "\n" << render_qr(*m, o.qr_invert);
  } else {
    ctx.err << "link too long for a QR code\n";
  }
}

}  // namespace qeli::cli
