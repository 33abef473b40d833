#include "config/unbuilt.h"

#include <array>

namespace qeli::config {
namespace {

using ProfilePred = bool (*)(const ProfileConfig&);
using WebPred = bool (*)(const WebConfig&);
using ClientPred = bool (*)(const ClientConfig&);

struct Row {
  UnbuiltFeature feature;
  ProfilePred profile = nullptr;
  WebPred web = nullptr;
  ClientPred client = nullptr;
};

bool client_tcp(const ClientConfig& c) { return c.proto == Transport::kTcp; }

// One line per feature. Delete a row when its feature lands.
const std::array kRows{
    Row{{UnbuiltScope::kWeb, "tls", "true", "",
         "the panel does not make its own self-signed certificate yet; give tls_cert and "
         "tls_key (PEM files), or put the panel behind a TLS reverse proxy"},
        nullptr,
        [](const WebConfig& w) { return w.tls && w.tls_cert.empty() && w.tls_key.empty(); }},
    Row{{UnbuiltScope::kWeb, "update_check", "true", "",
         "the panel makes no outbound requests, so it has no update check; updates come with "
         "the package"},
        nullptr,
        [](const WebConfig& w) { return w.update_check; }},
    Row{{UnbuiltScope::kProfile, "tun.device_type", "tap", "",
         "TAP (layer-2) devices are not built yet; qeli carries IP packets over a TUN device"},
        [](const ProfileConfig& p) { return p.tun.device_type == DeviceType::kTap; }},
    Row{{UnbuiltScope::kProfile, "dhcp.enabled", "true", "",
         "the DHCP server is not built yet; clients get their address in the AUTH reply"},
        [](const ProfileConfig& p) { return p.dhcp.enabled; }},
    Row{{UnbuiltScope::kProfile, "routing.forward_private", "false", "",
         "blocking private destinations per profile is not built yet; use allowed_networks "
         "on the users or their group"},
        [](const ProfileConfig& p) { return !p.routing.forward_private; }},
    Row{{UnbuiltScope::kProfile, "obf.traffic_shaping.enabled", "true", "",
         "flow shaping (Poisson cover traffic) is not built yet; the heartbeat keeps idle "
         "sessions alive"},
        [](const ProfileConfig& p) { return p.obf.shaping.enabled; }},
    Row{{UnbuiltScope::kProfile, "obf.traffic_shaping.stealth", "true", "",
         "stealth shaping (rate cap filled with cover records) is not built yet"},
        [](const ProfileConfig& p) { return p.obf.shaping.stealth; }},
    Row{{UnbuiltScope::kClient, "shaping", "true", "",
         "flow shaping (cover traffic) is not built yet"},
        nullptr,
        nullptr,
        [](const ClientConfig& c) { return c.fallbacks.shaping; }},
    Row{{UnbuiltScope::kClient, "shaping_stealth", "true", "", "stealth shaping is not built yet"},
        nullptr,
        nullptr,
        [](const ClientConfig& c) { return c.fallbacks.shaping_stealth; }},
    Row{{UnbuiltScope::kClient, "dev_attach", "true", "",
         "attaching to an existing device is not built yet; the client creates its TUN"},
        nullptr,
        nullptr,
        [](const ClientConfig& c) { return c.dev_attach; }},
    Row{{UnbuiltScope::kClient, "dev_node", "wintun0", "",
         "a Windows (Wintun) setting; the Linux client names its TUN with `dev`"},
        nullptr,
        nullptr,
        [](const ClientConfig& c) { return !c.dev_node.empty(); }},
    Row{{UnbuiltScope::kClient, "metric", "5", "",
         "a Windows interface metric; the Linux client does not use it"},
        nullptr,
        nullptr,
        [](const ClientConfig& c) { return c.metric != 0; }},
    Row{{UnbuiltScope::kClient, "route_file", "/etc/qeli/routes.txt", "",
         "route files are not built yet; use include / exclude"},
        nullptr,
        nullptr,
        [](const ClientConfig& c) { return !c.route_file.empty(); }},
    Row{{UnbuiltScope::kClient, "persist_tun", "true", "",
         "keeping the TUN across reconnects by configuration is not built yet (the client "
         "already keeps it while it reconnects)"},
        nullptr,
        nullptr,
        [](const ClientConfig& c) { return c.persist_tun; }},
    Row{{UnbuiltScope::kClient, "allow_lan", "true", "",
         "a mobile-app setting; on Linux use exclude for LAN ranges"},
        nullptr,
        nullptr,
        [](const ClientConfig& c) { return c.allow_lan; }},
    Row{{UnbuiltScope::kClient, "apps", "firefox", "",
         "per-application routing is not built for Linux"},
        nullptr,
        nullptr,
        [](const ClientConfig& c) { return !c.apps.empty(); }},
    Row{{UnbuiltScope::kClient, "apps_mode", "include", "",
         "per-application routing is not built for Linux"},
        nullptr,
        nullptr,
        [](const ClientConfig& c) { return c.apps_mode != AppsMode::kAll; }},
    Row{{UnbuiltScope::kClient, "gateway_nat", "true", "",
         "sharing the tunnel with a LAN (NAT) is not built yet"},
        nullptr,
        nullptr,
        [](const ClientConfig& c) { return c.gateway_nat; }},
    Row{{UnbuiltScope::kClient, "lan_subnet", "192.168.50.0/24", "",
         "sharing the tunnel with a LAN (NAT) is not built yet"},
        nullptr,
        nullptr,
        [](const ClientConfig& c) { return !c.lan_subnet.empty(); }},
    Row{{UnbuiltScope::kClient, "exit_node", "true", "", "exit-node mode is not built yet"},
        nullptr,
        nullptr,
        [](const ClientConfig& c) { return c.exit_node; }},
    Row{{UnbuiltScope::kClient, "forward", "true", "", "router forwarding mode is not built yet"},
        nullptr,
        nullptr,
        [](const ClientConfig& c) { return c.forward; }},
    Row{{UnbuiltScope::kClient, "autostart", "true", "",
         "a GUI setting; on Linux run `systemctl enable qeli-client@NAME`"},
        nullptr,
        nullptr,
        [](const ClientConfig& c) { return c.autostart; }},
    Row{{UnbuiltScope::kClient, "local", "192.0.2.1", "",
         "binding a source address is not built yet"},
        nullptr,
        nullptr,
        [](const ClientConfig& c) { return !c.local.empty(); }},
    Row{{UnbuiltScope::kClient, "lport", "4000", "",
         "a fixed source port is built for proto = udp only"},
        nullptr,
        nullptr,
        [](const ClientConfig& c) { return client_tcp(c) && c.lport != 0; }},
};

const std::array<UnbuiltFeature, kRows.size()> kFeatures = [] {
  std::array<UnbuiltFeature, kRows.size()> out{};
  for (std::size_t i = 0; i < kRows.size(); ++i) out[i] = kRows[i].feature;
  return out;
}();

}  // namespace

std::span<const UnbuiltFeature> unbuilt_features() { return kFeatures; }

std::string unbuilt_message(const UnbuiltFeature& f) {
  return "not supported yet: " + std::string(f.reason);
}

void refuse_unbuilt(const ProfileConfig& p, const RefuseFn& refuse) {
  for (const auto& r : kRows) {
    if (r.profile != nullptr && r.profile(p)) refuse(r.feature.key, unbuilt_message(r.feature));
  }
}

void refuse_unbuilt(const WebConfig& w, const RefuseFn& refuse) {
  for (const auto& r : kRows) {
    if (r.web != nullptr && r.web(w)) refuse(r.feature.key, unbuilt_message(r.feature));
  }
}

void refuse_unbuilt(const ClientConfig& c, const RefuseFn& refuse) {
  for (const auto& r : kRows) {
    if (r.client != nullptr && r.client(c)) refuse(r.feature.key, unbuilt_message(r.feature));
  }
}

}  // namespace qeli::config
