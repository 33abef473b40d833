#include "client/core/connector.h"

#include <algorithm>
#include <chrono>

#include "base/build_info.h"
#include "client/core/failure_hint.h"
#include "client/core/farewell.h"
#include "config/short_id.h"
#include "crypto/random.h"
#include "tunnel/pushed_params.h"
#include "wire/control_frame.h"
#include "wire/modes.h"

namespace qeli::client {
std::uint64_t unix_seconds() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::seconds>(
                                        std::chrono::system_clock::now().time_since_epoch())
                                        .count());
}

namespace {

using Clock = std::chrono::steady_clock;

// The data-plane knobs a client has before the server pushes its own (config `[qeli]`
// fallbacks): what tunnel::parse_pushed_params starts from.
tunnel::PushedParams fallback_params(const config::ClientFallbacks& fb) {
  tunnel::PushedParams p;
  p.padding.enabled = fb.padding;
  p.padding.min_bytes = fb.padding_min;
  p.padding.max_bytes = fb.padding_max;
  p.heartbeat.enabled = fb.heartbeat;
  p.heartbeat.interval = fb.heartbeat_interval;
  p.heartbeat.data_size_bytes = fb.heartbeat_size;
  p.heartbeat.jitter = fb.heartbeat_jitter;
  p.shaping = {fb.shaping,          fb.shaping_gap_mean, fb.shaping_gap_min,
               fb.shaping_gap_max,  fb.shaping_budget,   fb.shaping_min_size,
               fb.shaping_max_size, fb.shaping_stealth,  fb.shaping_stealth_mbps};
  return p;
}

}  // namespace

tunnel::PushedParams ClientCore::pushed_params(const config::ClientConfig& cfg,
                                               const handshake::AuthOk& ok) {
  return tunnel::parse_pushed_params(ok.obfuscation_json, fallback_params(cfg.fallbacks));
}

Connector::Connector(ClientCore& core, const CoreLog& log)
    : core_(core),
      opt_(core.options_),
      cfg_(core.options_.config),
      log_(log),
      servers_(core.options_.servers),
      endpoint_name_(cfg_.server.to_string()),
      pinned_(core.options_.pinned) {}

Duration Connector::connect_once() {
  attempt_ = Attempt{};
  core_.set_state(ClientState::kConnecting);
  // Reconnect to the address that worked last before trying the others: a dead address
  // listed first would otherwise cost its share of the timeout on every reconnect.
  if (auto it = std::find(servers_.begin(), servers_.end(), server_); it != servers_.end()) {
    std::rotate(servers_.begin(), it, it + 1);
  }
  return cfg_.proto == config::Transport::kUdp ? connect_datagram() : connect_stream();
}

handshake::ClientConfig Connector::handshake_config(std::uint32_t extensions) const {
  handshake::ClientConfig hc;
  hc.mode = config::mode_spec(cfg_.proto, cfg_.mode)->flight;
  hc.bind_static = cfg_.bind_static;
  hc.pinned_server_key = pinned_;
  hc.user = cfg_.user;
  hc.password = opt_.password;
  hc.device_id = opt_.device_id;
  // 0.7.16 SNI rules; an empty `sni` key means "not configured" (use the host).
  hc.sni =
      wire::choose_sni(cfg_.sni.empty() ? std::nullopt : std::optional<std::string_view>(cfg_.sni),
                       cfg_.server.host, crypto::system_rng());
  hc.timeout = std::chrono::duration_cast<Duration>(cfg_.timeout);
  // IPv6 inside only where the host can carry it (ClientEnv::ipv6_inside) and the
  // configured MTU allows (RFC 8200 §5: 1280).
  const bool ipv6 = core_.env_.ipv6_inside && (cfg_.mtu == 0 || cfg_.mtu >= 1280);
  hc.extensions = ipv6 ? extensions : extensions & ~handshake::caps::kIpv6Inside;
  // 0.7.16 seals a REALITY token into every fake-TLS hello when both the short id and
  // the server key are configured (so one client config also passes a REALITY gate).
  if (!cfg_.reality_sid.empty() && pinned_) {
    if (const auto id = config::parse_short_id(cfg_.reality_sid)) {
      hc.reality = handshake::ClientConfig::RealityToken{*id, unix_seconds()};
    }
  }
  return hc;
}

bool Connector::handshake_succeeded(handshake::Failure failure, bool udp_auth_sent) {
  if (failure == handshake::Failure::kServerKeyMismatch) {
    // The next step: a rotation on purpose needs a re-pin; anything else may be an attack.
    const std::string repin =
        opt_.repin_hint.empty() ? "import a new link or set `key` to the new key" : opt_.repin_hint;
    stop_for_good("SERVER KEY MISMATCH: " + endpoint_name_ +
                  " presented a different identity key than the pinned one. If the operator "
                  "rotated it (qeli rotate-identity), get a new link (`qeli share-link USER` on "
                  "the server) or " +
                  repin + "; otherwise do not connect: someone may be impersonating the server");
    return false;
  }
  if (failure == handshake::Failure::kPinRequired) {
    stop_for_good("the server key must be pinned (set `key` or use a qeli:// link with key=)");
    return false;
  }
  if (failure == handshake::Failure::kNone) return true;
  if (failure == handshake::Failure::kTlsBindingMismatch) {
    log_.error(
        "the TLS session to {} is terminated by something in between (a TLS-inspecting "
        "proxy, or an attack): the server proved another TLS session than ours. Nothing was "
        "sent; retrying, but this path cannot carry reality-tls",
        endpoint_name_);
    return false;
  }
  // 0.7.16 never says why it refuses: client/core/failure_hint.h reads what the timing says.
  const FailureHint hint =
      explain_handshake_failure(failure, udp_auth_sent, endpoint_name_, cfg_.user);
  attempt_.rejected = hint.rejected;
  log_.warn("{}", hint.text);
  if (hint.probably_locked_out) core_.set_state(ClientState::kConnecting, "probably locked out");
  return false;
}

bool Connector::remember_server_key(const handshake::ClientSession& session) {
  if (core_.env_.confirm_server) {
    if (auto err = core_.env_.confirm_server(session.server_key, session.server_key_was_pinned);
        !err.empty()) {
      stop_for_good(std::move(err));
      return false;
    }
  }
  if (session.server_key_was_pinned) return true;
  if (core_.env_.trust_on_first_use) {
    if (auto err = core_.env_.trust_on_first_use(session.server_key); !err.empty()) {
      stop_for_good(std::move(err));
      return false;
    }
  }
  pinned_ = session.server_key;
  log_.info("trusting {} on first use: key {}", endpoint_name_, to_hex(session.server_key));
  return true;
}

tunnel::SessionParams Connector::session_params(const handshake::AuthOk& ok, std::size_t mtu,
                                                bool close_notify) {
  tunnel::SessionParams sc;
  sc.apply(ClientCore::pushed_params(cfg_, ok));
  sc.send.mtu = mtu;
  sc.send.farewell = client_farewell(close_notify, core_.stop_);
  sc.send.initial_frames.push_back(wire::build_mtu_report(static_cast<std::uint16_t>(mtu)));
  sc.send.initial_frames.push_back(wire::build_client_info(build::version(), opt_.platform));
  if ((attempt_.caps & handshake::caps::kIpv6Inside) != 0 && !attempt_.ipv6) {
    // IPv6 was agreed, but this host's TUN cannot carry it (a probed UDP path below 1280,
    // no IPv6 in the kernel, an app without it): the capabilities again, without the
    // bit, so the server stops routing IPv6 here and stops listing an IPv6 address. Twice:
    // over UDP one lost datagram would otherwise leave it unsaid (a repeat changes nothing).
    for (int i = 0; i < 2; ++i) {
      sc.send.initial_frames.push_back(
          wire::build_capabilities(attempt_.caps & ~handshake::caps::kIpv6Inside));
    }
  }
  sc.receive.end_on_close_frame = close_notify;
  if (close_notify) {
    sc.receive.on_control = [this](const wire::ControlFrame& f) { on_server_control(f); };
  }
  return sc;
}

void Connector::on_server_control(const wire::ControlFrame& f) {
  if (f.type != wire::kCtrlSessionClose) return;
  // A malformed reason still ends the session (the engine acts on the type): unknown.
  auto why = wire::parse_session_close(f);
  attempt_.closed = why.ok() ? *why : wire::CloseReason{};
}

Duration Connector::run_tunnel(const handshake::AuthOk& ok, std::size_t mtu,
                               tunio::ReadMode read_mode, bool gso,
                               const transport::UdpRxStats* udp, const DataPhase& data) {
  attempt_.authenticated = true;
  TunnelConfig tc;
  tc.pushed = ok;
  if (!attempt_.ipv6) {
    tc.pushed.x_ip6.reset();  // not negotiated: the tunnel stays IPv4-only
    tc.pushed.x_server_ip6.reset();
    tc.pushed.x_dns6.reset();
  }
  tc.mtu = mtu;
  tc.server = server_;
  tc.gso = gso;
  tc.aes_gcm = attempt_.aes_gcm;
  tc.params = ClientCore::pushed_params(cfg_, ok);
  tc.read_mode = read_mode;
  auto tunnel = core_.env_.open_tunnel(tc);
  if (!tunnel.ok()) return stop_for_good(tunnel.error());
  // The host may not have set IPv6 up (an MTU below 1280, no IPv6 in its kernel): then
  // this session reads and takes IPv4 only, as toward a 0.7.16 server.
  attempt_.ipv6 = attempt_.ipv6 && (*tunnel)->carries_ipv6();
  if (ok.x_caps && (*ok.x_caps & handshake::caps::kIpv6Inside) != 0 && !attempt_.ipv6) {
    // Say why a tunnel the server offers IPv6 in stays IPv4-only (the host's own
    // fallback has said so already).
    if (!core_.env_.ipv6_inside) {
      log_.info(
          "the server offers IPv6 inside the tunnel; this client takes IPv4 only "
          "(ipv6 = false, or an app without IPv6)");
    } else if (cfg_.mtu != 0 && cfg_.mtu < 1280) {
      log_.warn(
          "the server offers IPv6 inside the tunnel, but mtu = {} is below IPv6's 1280: "
          "IPv4 only",
          cfg_.mtu);
    } else if (!ok.x_ip6) {
      log_.info(
          "the server offers IPv6 inside the tunnel, but no IPv6 address to this user "
          "(its allowed_networks hold no IPv6 network): IPv4 only");
    }
  }
  auto counters = std::make_shared<tunnel::SessionCounters>();
  core_.connected(tc, counters);
  (*tunnel)->started(*counters);
  if (udp != nullptr) (*tunnel)->started_udp(*udp);
  const auto started = Clock::now();
  const auto end = data((*tunnel)->device(), mtu, *counters);
  const auto ran = Clock::now() - started;
  const std::string why =
      end == tunnel::SessionEnd::kClosedByPeer && attempt_.closed
          ? std::string("the server ended the session: ") + wire::to_string(*attempt_.closed)
          : std::string(tunnel::to_string(end));
  log_.info("session ended: {} after {} s (tx {} pkts, rx {} pkts, drops: {})", why,
            std::chrono::duration_cast<std::chrono::seconds>(ran).count(),
            counters->get(tunnel::SessionCounter::kTxPackets),
            counters->get(tunnel::SessionCounter::kRxPackets), tunnel::describe_drops(*counters));
  (*tunnel)->ended(why);
  core_.disconnected();
  return ran;
}

std::unique_ptr<PathWatch> Connector::watch_path(int fd) const {
  return core_.env_.watch_path ? core_.env_.watch_path(fd) : nullptr;
}

}  // namespace qeli::client
