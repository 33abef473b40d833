#include "config/link_plan.h"

#include <algorithm>

#include "config/link.h"
#include "config/values.h"

namespace qeli::config {
namespace {

bool allowed_on(const std::vector<std::string>& profiles, const std::string& name) {
  return profiles.empty() || std::find(profiles.begin(), profiles.end(), name) != profiles.end();
}

}  // namespace

Result<LinkPlan, std::string> plan_link(const ServerConfig& cfg, const std::string& user,
                                        const std::vector<std::string>& allowed,
                                        const LinkRequest& request) {
  const std::string& host = request.host;
  if (host.empty()) return fail(std::string("a link needs a host (the address clients dial)"));
  std::string name = request.profile;
  if (name.empty() && !allowed.empty()) name = allowed.front();
  if (name.empty()) {
    for (const auto& p : cfg.profiles) {
      if (p.enabled) {
        name = p.name;
        break;
      }
    }
  }
  LinkPlan plan;
  plan.profile = cfg.find_profile(name);
  if (plan.profile == nullptr || !allowed_on(allowed, name)) {
    return fail("profile '" + name + "' is not a profile " + user + " may use");
  }
  auto& target = plan.target;
  bool bracketed = false;
  if (host.front() == '[' && host.back() == ']') {
    target.host = host.substr(1, host.size() - 2);  // [v6] without a port
    bracketed = true;
  } else if (host.find(':') != std::string::npos) {
    const auto ep = Endpoint::parse(host);
    if (!ep) return fail("host " + host + " is not HOST[:PORT] or [IPv6][:PORT]");
    target.host = ep->host;
    target.port = ep->port;
    bracketed = ep->bracketed;
  } else {
    target.host = host;
  }
  if (bracketed && !is_ipv6_literal(target.host)) {
    return fail("host " + host + ": brackets hold an [IPv6] address only");
  }
  target.label = request.label.empty() ? user + "@" + name : request.label;
  target.reality_short_id = request.reality_short_id;
  // The link must be one a client accepts: check the host the same way a client will.
  ShareLink probe;
  probe.host = target.host;
  probe.port = 1;
  if (!parse_link(emit_link(probe)).ok()) {
    return fail("host " + host + " is not a valid host name, IPv4 or [IPv6] address");
  }
  return plan;
}

}  // namespace qeli::config
