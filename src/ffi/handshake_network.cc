// qeli_client_publish_handshake_network (transport-core ABI 1.5, QELI_CORE_HANDSHAKE_
// NETWORK_INPUT): an app that ran the handshake itself hands in what the server pushed —
//
//   {"auth_ok": "OK:{…}",            the complete AUTH OK plaintext (0.7.16 fields)
//    "effective_mtu": 1400,          the tunnel MTU it settled on (576..16638)
//    "fallback_dns_servers": [...]}  optional, ≤ 8 addresses (other keys are ignored)
//
// and the core parses the untrusted push itself and publishes the plan a run would:
// STATE_CHANGED(AWAITING_NETWORK) + NETWORK_PLAN, answered by network_plan_result (and
// set_tun_fd) as any plan. Checks and codes as 0.7.16's ClientCore::
// publish_handshake_network: a malformed input, push or plan is INVALID_ARGUMENT; then the
// state (CONNECTING or RUNNING, no plan pending: else INVALID_STATE), the capabilities the
// plan needs (else UNSUPPORTED) and two free event slots (else EVENT_QUEUE_FULL).
#include <nlohmann/json.hpp>

#include "ffi/ffi_client.h"
#include "ffi/network_plan.h"

namespace qeli::ffi {

namespace {

struct HandshakeNetwork {
  std::string auth_ok;
  std::uint32_t mtu = 0;
  std::vector<std::string> fallback_dns;
};

std::optional<HandshakeNetwork> parse(std::string_view text) {
  const auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  HandshakeNetwork in;
  const auto ok = j.find("auth_ok");
  const auto mtu = j.find("effective_mtu");
  if (ok == j.end() || !ok->is_string() || mtu == j.end() || !mtu->is_number_unsigned() ||
      mtu->get<std::uint64_t>() > 0xffff) {
    return std::nullopt;
  }
  in.auth_ok = ok->get<std::string>();
  in.mtu = mtu->get<std::uint32_t>();
  if (const auto dns = j.find("fallback_dns_servers"); dns != j.end()) {
    if (!dns->is_array()) return std::nullopt;
    for (const auto& a : *dns) {
      if (!a.is_string()) return std::nullopt;
      in.fallback_dns.push_back(a.get<std::string>());
    }
  }
  return in;
}

}  // namespace

std::int32_t FfiClient::publish_handshake_network(std::string_view json,
                                                  std::uint64_t& generation) {
  generation = 0;
  if (json.size() > kMaxHandshakeNetworkBytes) return rc::kInvalidArgument;
  const auto in = parse(json);
  if (!in || in->mtu < config::kMtuMin || in->mtu > config::kMtuMax) return rc::kInvalidArgument;
  // The resolvers as a run input's (at most 8 addresses).
  auto dns = check_run_input({{}, in->fallback_dns}, 0);
  if (!dns.ok()) return rc::kInvalidArgument;
  // 0.7.16's fields only: what this app negotiated beyond them is not ours to trust.
  const auto ok = handshake::parse_auth_ok(
      ByteSpan(reinterpret_cast<const std::uint8_t*>(in->auth_ok.data()), in->auth_ok.size()),
      /*accept_extensions=*/false);
  if (!ok.ok()) return rc::kInvalidArgument;

  std::lock_guard lock(mu_);
  client::TunnelConfig tc;
  tc.pushed = *ok;
  tc.mtu = in->mtu;
  tc.params = client::ClientCore::pushed_params(config_, *ok);
  PlanInputs plan_in;
  plan_in.generation = last_generation_ + 1;
  plan_in.fallback_dns = std::move(dns->fallback_dns);
  plan_in.carrier_known = false;
  plan_in.connection_log.push_back("server push (the app's handshake): ip=" + ok->client_ip + "/" +
                                   std::to_string(ok->prefix) + " gw=" + ok->server_ip +
                                   " mtu=" + std::to_string(in->mtu));
  auto plan = build_network_plan(tc, config_, plan_in);
  if (!plan.ok()) return rc::kInvalidArgument;
  if (state_ != State::kConnecting && state_ != State::kRunning) return rc::kInvalidState;
  if (pending_plan_ != 0) return rc::kInvalidState;
  if ((plan->required_caps & ~caps_) != 0) return rc::kUnsupported;
  if (events_.room() < 2) return rc::kEventQueueFull;
  last_generation_ = plan_in.generation;
  set_state_locked(State::kAwaitingNetwork);
  Event e;
  e.kind = EventKind::kNetworkPlan;
  e.state = static_cast<std::uint32_t>(state_);
  e.format = PayloadFormat::kJson;
  e.plan_generation = plan_in.generation;
  e.payload = std::move(plan->json);
  plan_ = std::make_shared<Request>();
  plan_->sequence = events_.try_push(std::move(e));
  pending_plan_ = plan_in.generation;
  pending_mtu_ = in->mtu;
  pending_gso_ = false;
  generation = plan_in.generation;
  return rc::kOk;
}

}  // namespace qeli::ffi
