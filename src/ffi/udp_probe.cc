// qeli_client_udp_probe (transport-core ABI 1.8): is a UDP profile's server there? The
// profile's own first flight to each of the server's addresses at once, through
// ClientCore::probe_udp — no handle, no credential, no pinned key; as 0.7.16 bounded to
// about 2 × timeout after a name resolution bounded by the timeout too.
#include "base/bytes.h"
#include "client/bounded_resolve.h"
#include "client/core/client_core.h"
#include "crypto/ct.h"
#include "ffi/ffi_client.h"

namespace qeli::ffi {

Result<std::vector<transport::SockAddr>, std::string> resolve_servers(
    const config::ClientConfig& config) {
  auto r = transport::resolve({config.server.host, config.server.port});
  if (!r.ok())
    return fail("cannot resolve " + config.server.to_string() + ": " + r.error().message);
  return std::move(*r);
}

std::optional<handshake::X25519Public> pinned_key(const config::ClientConfig& config) {
  handshake::X25519Public key{};
  if (config.key.empty() || !from_hex_into(config.key, key) || crypto::ct_is_zero(key)) {
    return std::nullopt;
  }
  return key;
}

std::int32_t udp_probe(std::string_view profile, std::uint32_t timeout_ms,
                       std::uint64_t& latency_ms) {
  latency_ms = 0;
  auto cfg = load_profile(profile);
  if (!cfg.ok() || cfg->proto != config::Transport::kUdp) return rc::kInvalidConfig;
  // The name's resolution within one attempt's time too (0.7.16): a probe never hangs.
  const auto timeout = std::chrono::milliseconds(timeout_ms);
  auto servers = client::resolve_within({cfg->server.host, cfg->server.port}, timeout);
  if (!servers || servers->empty()) return rc::kPlatformRejected;
  client::ClientCoreOptions o;
  o.config = std::move(*cfg);
  o.servers = std::move(*servers);
  o.pinned = pinned_key(o.config);
  o.platform = "libqeli";
  client::ClientEnv env;  // no protect: the probe runs before any VPN is up
  auto t = client::ClientCore::probe_udp(std::move(o), std::move(env), timeout, kProbeAttempts);
  if (!t.ok()) {
    return t.error().code == client::ClientErrc::kBadConfig ? rc::kInvalidConfig
                                                            : rc::kPlatformRejected;
  }
  latency_ms = static_cast<std::uint64_t>(t->count());
  return rc::kOk;
}

}  // namespace qeli::ffi
