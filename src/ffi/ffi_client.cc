#include "ffi/ffi_client.h"

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "base/bytes.h"
#include "client/client_hooks.h"
#include "crypto/random.h"
#include "ffi/network_plan.h"
#include "tunio/tun_device.h"

namespace qeli::ffi {

namespace {

constexpr std::size_t kLogLines = 16;

// 0.7.16's words when a plan needs a QELI_PLATFORM_* bit the app did not declare.
std::string missing_caps(std::uint64_t missing) {
  return fmt::format("platform is missing required capabilities 0x{:x}", missing);
}

}  // namespace

// The session's TUN as the core sees it: the app's fd or the packet pipe. Its end folds
// the session's counters into the handle's totals and notes why it ended (the run's
// ERROR text when no stop ended it: one connection per run, the app reconnects).
class FfiClient::PlanTunnel final : public client::Tunnel {
 public:
  PlanTunnel(FfiClient& owner, std::unique_ptr<tunio::TunDevice> device,
             std::shared_ptr<PacketPipe> pipe, bool ipv6)
      : owner_(owner), device_(std::move(device)), pipe_(std::move(pipe)), ipv6_(ipv6) {}
  ~PlanTunnel() override {
    std::lock_guard lock(owner_.mu_);
    if (pipe_) owner_.totals_.internal_drops += pipe_->dropped();
    owner_.pipe_.reset();
    owner_.running_generation_ = 0;
  }
  tunio::TunDevice& device() override { return pipe_ ? *pipe_ : *device_; }
  bool carries_ipv6() const override { return ipv6_; }
  void started(const tunnel::SessionCounters& counters) override {
    std::lock_guard lock(owner_.mu_);
    owner_.live_ = &counters;
  }
  // While the counters still live (the core drops them after this): into the totals.
  void ended(const std::string& why) override {
    std::lock_guard lock(owner_.mu_);
    owner_.session_end_ = why;
    if (owner_.live_ == nullptr) return;
    auto& t = owner_.totals_;
    const auto& c = *owner_.live_;
    t.tx_packets += c.get(tunnel::SessionCounter::kTxPackets);
    t.tx_bytes += c.get(tunnel::SessionCounter::kTxBytes);
    t.rx_packets += c.get(tunnel::SessionCounter::kRxPackets);
    t.rx_bytes += c.get(tunnel::SessionCounter::kRxBytes);
    owner_.live_ = nullptr;
  }

 private:
  FfiClient& owner_;
  std::unique_ptr<tunio::TunDevice> device_;
  std::shared_ptr<PacketPipe> pipe_;
  bool ipv6_;  ///< the plan gave the app IPv6 (x_ip6 negotiated, MTU ≥ 1280)
};

FfiClient::FfiClient(config::ClientConfig config, std::uint64_t platform_caps,
                     std::uint32_t capacity)
    : config_(std::move(config)), caps_(platform_caps), events_(capacity) {
  // An app that sets no device id gets one for this handle's life (qeli_client_set_device_id
  // replaces it): the server counts sessions per device.
  crypto::system_rng().fill(device_id_);
  // 0.7.16 queues STATE_CHANGED(CREATED) as the handle's first event (sequence 1); Android
  // requires exactly [CREATED, CONNECTING] after start.
  Event e;
  e.kind = EventKind::kStateChanged;
  e.state = static_cast<std::uint32_t>(State::kCreated);
  events_.try_push(std::move(e));  // capacity >= 2: always room
}

FfiClient::~FfiClient() { shutdown(); }

void FfiClient::set_state_locked(State s) {
  if (s == state_) return;
  state_ = s;
  if (s == State::kRunning) running_since_ = std::chrono::steady_clock::now();
  Event e;
  e.kind = EventKind::kStateChanged;
  e.state = static_cast<std::uint32_t>(s);
  events_.force_push(std::move(e));  // a state change always gets through
  cv_.notify_all();
}

void FfiClient::fail_locked(std::int32_t code, const std::string& message) {
  if (fail_) return;
  fail_ = {code, message};
  // The ERROR event (carrying FAILED) first, then the state change, as 0.7.16 orders them.
  Event e;
  e.kind = EventKind::kError;
  e.state = static_cast<std::uint32_t>(State::kFailed);
  e.format = PayloadFormat::kUtf8;
  e.error_code = code;
  e.payload = message;
  events_.force_push(std::move(e));
  set_state_locked(State::kFailed);
  if (core_) core_->stop();
}

void FfiClient::note_log(client::LogLevel level, const std::string& line) {
  std::lock_guard lock(mu_);
  if (level >= client::LogLevel::kWarn) last_problem_ = line;
  if (log_.size() == kLogLines) log_.pop_front();
  log_.push_back(line);
}

std::string FfiClient::run_end_locked(const client::ClientError& e) const {
  if (!e.detail.empty()) return e.detail;
  if (!session_end_.empty()) return "transport disconnected: " + session_end_;
  if (!last_problem_.empty()) return last_problem_;
  return "transport disconnected";
}

std::int32_t FfiClient::start() {
  std::lock_guard lock(mu_);
  if (cancel_ || running_) return rc::kInvalidState;
  if (state_ != State::kCreated && state_ != State::kStopped && state_ != State::kFailed) {
    return rc::kInvalidState;
  }
  if (events_.room() == 0) return rc::kEventQueueFull;
  fail_.reset();
  protect_.reset();
  identity_.reset();
  plan_.reset();
  pending_plan_ = 0;
  tun_fd_.reset();
  set_state_locked(State::kConnecting);
  return rc::kOk;
}

bool FfiClient::push_request_locked(std::unique_lock<std::mutex>& lock, Event e,
                                    std::uint64_t& seq) {
  cv_.wait(lock, [&] { return cancelled_locked() || fail_ || events_.room() > 0; });
  if (cancelled_locked() || fail_) return false;
  e.state = static_cast<std::uint32_t>(state_);
  seq = events_.try_push(std::move(e));
  return true;
}

bool FfiClient::await_locked(std::unique_lock<std::mutex>& lock, std::optional<Request>& req,
                             const char* what) {
  cv_.wait(lock, [&] { return cancelled_locked() || fail_ || req->answered; });
  const bool answered = req->answered, ok = req->ok;
  const std::string reason = req->reason;
  req.reset();
  if (!answered) return false;
  if (!ok) {
    fail_locked(rc::kPlatformRejected,
                std::string("the app refused ") + what + (reason.empty() ? "" : ": " + reason));
    return false;
  }
  return true;
}

client::ClientEnv FfiClient::make_env() {
  client::ClientEnv env;
  // The profile's `ipv6` (default on) and an app that applies IPv6 plans.
  env.ipv6_inside = config_.ipv6 && (caps_ & platform::kIpv6) != 0;
  if ((caps_ & platform::kSocketProtect) != 0) {
    env.protect = [this](int fd) {
      std::unique_lock lock(mu_);
      Event e;
      e.kind = EventKind::kSocketProtect;
      e.format = PayloadFormat::kJson;
      e.payload = nlohmann::json{{"fd", fd}}.dump();
      protect_ = Request{};
      if (!push_request_locked(lock, std::move(e), protect_->sequence)) {
        protect_.reset();
        return false;
      }
      return await_locked(lock, protect_, "to protect the carrier socket");
    };
  }
  // QELI_PLATFORM_SERVER_IDENTITY: the app decides on every session's key (its known-hosts
  // policy), pinned or not; without it an unpinned key is trusted for the handle's life.
  if ((caps_ & platform::kServerIdentity) != 0) {
    env.confirm_server = [this](const handshake::X25519Public& key, bool) -> std::string {
      std::unique_lock lock(mu_);
      Event e;
      e.kind = EventKind::kServerIdentity;
      e.format = PayloadFormat::kJson;
      e.payload =
          nlohmann::json{{"server_id", config_.server.to_string()}, {"public_key", to_hex(key)}}
              .dump();
      identity_ = Request{};
      if (!push_request_locked(lock, std::move(e), identity_->sequence)) {
        identity_.reset();
        return fail_ ? fail_->second : "stopped";
      }
      if (!await_locked(lock, identity_, "the server's identity")) {
        return fail_ ? fail_->second : "stopped";
      }
      return {};
    };
  }
  env.open_tunnel =
      [this](
          const client::TunnelConfig& tc) -> Result<std::unique_ptr<client::Tunnel>, std::string> {
    std::unique_lock lock(mu_);
    if (cancelled_locked() || fail_) return fail(std::string("stopped"));
    PlanInputs in;
    in.generation = ++last_generation_;
    in.fallback_dns = input_.fallback_dns;
    in.connection_log.assign(log_.begin(), log_.end());
    in.connection_log.push_back("authenticated by " + config_.server.to_string() + " (" +
                                tc.server.ip_string() + "), mtu " + std::to_string(tc.mtu) +
                                (tc.gso ? ", GSO super-packets" : "") +
                                (tc.aes_gcm ? ", AES-256-GCM records" : ""));
    // IPv6 inside the tunnel only for an app that applies it (QELI_PLATFORM_X_IPV6, which
    // is what made the core offer it) and an MTU IPv6 allows (RFC 8200 §5: 1280).
    in.ipv6 = tc.pushed.x_ip6.has_value() && tc.mtu >= 1280;
    if (tc.pushed.x_ip6 && !in.ipv6) {
      in.connection_log.push_back("the server offers IPv6 inside the tunnel, but mtu " +
                                  std::to_string(tc.mtu) + " is below 1280: IPv4 only");
    }
    if (!in.ipv6) {
      for (const auto& c : config_.include6) {
        in.connection_log.push_back("include " + c.to_string() +
                                    ": this session carries no IPv6; not routed");
      }
      for (const auto& c : config_.exclude6) {
        in.connection_log.push_back("exclude " + c.to_string() +
                                    ": this session carries no IPv6; not in the plan");
      }
    }
    NetworkPlan plan = build_network_plan(tc, config_, in);
    if (const std::uint64_t missing = plan.required_caps & ~caps_; missing != 0) {
      fail_locked(rc::kPlatformRejected, missing_caps(missing));
      return fail(fail_->second);
    }
    Event e;
    e.kind = EventKind::kNetworkPlan;
    e.format = PayloadFormat::kJson;
    e.plan_generation = in.generation;
    e.payload = std::move(plan.json);
    set_state_locked(State::kAwaitingNetwork);
    pending_plan_ = in.generation;
    pending_mtu_ = tc.mtu;
    pending_gso_ = tc.gso;
    plan_ = Request{};
    if (!push_request_locked(lock, std::move(e), plan_->sequence) ||
        !await_locked(lock, plan_, "the network plan")) {
      pending_plan_ = 0;
      plan_.reset();
      tun_fd_.reset();
      return fail(fail_ ? fail_->second : std::string("stopped"));
    }
    // plan_result() made the pipe (packet mode) and went RUNNING already, so the app
    // may push the moment its answer returned.
    pending_plan_ = 0;
    std::unique_ptr<tunio::TunDevice> device;
    std::shared_ptr<PacketPipe> pipe = pipe_;
    if (!pipe) {
      tunio::TunConfig cfg;
      cfg.mtu = tc.mtu;
      cfg.read_mode = tc.read_mode;
      auto tun = tunio::FdTun::adopt(tun_fd_.release(), cfg);
      if (!tun.ok()) {
        fail_locked(rc::kPlatformRejected, "the TUN fd: " + tun.error().detail);
        return fail(fail_->second);
      }
      device = std::make_unique<tunio::FdTun>(std::move(*tun));
    }
    live_ = nullptr;
    return std::unique_ptr<client::Tunnel>(
        std::make_unique<PlanTunnel>(*this, std::move(device), std::move(pipe), in.ipv6));
  };
  env.log = [this](client::LogLevel level, std::string_view line) {
    if (level >= client::LogLevel::kInfo) note_log(level, std::string(line));
  };
  return env;
}

std::int32_t FfiClient::run(const RunInput& input) {
  {
    std::lock_guard lock(mu_);
    if (cancel_ || running_ || state_ != State::kConnecting) return rc::kInvalidState;
    if ((caps_ & (platform::kTunFd | platform::kTunPacketBatch)) == 0) return rc::kUnsupported;
    // The plan will ask for the kill switch (a full tunnel's): without the capability it
    // could never be applied, so fail now rather than after connecting (0.7.16 fails at
    // the plan with the same words).
    if (plan_kill_switch(config_, config_.gateway) && (caps_ & platform::kKillSwitch) == 0) {
      fail_locked(rc::kPlatformRejected, missing_caps(platform::kKillSwitch));
      return rc::kPlatformRejected;
    }
    running_ = true;
    input_ = input;
    session_end_.clear();
    last_problem_.clear();
  }
  // Outside the lock: reading a password file or command and resolving the server's
  // name may take a while; a stop meanwhile is seen below.
  client::ClientCoreOptions o;
  o.config = config_;
  // One connection per run, as 0.7.16's core: reconnecting is the app's (it re-resolves the
  // server, rotates addresses, re-applies its plan). The `reconnect*` keys are accepted and
  // not applied here; the core's own `reconnect = false` path ends the run.
  o.config.reconnect = false;
  std::string error;
  const auto pw = client::read_client_password(config_);
  if (!pw.error.empty()) error = "password: " + pw.error;
  o.password = pw.password;
  o.servers = input.carrier_addresses;
  if (error.empty() && o.servers.empty()) {
    auto r = resolve_servers(config_);
    if (r.ok()) {
      o.servers = std::move(*r);
    } else {
      error = r.error();
    }
  }
  o.pinned = pinned_key(config_);
  o.platform = "libqeli";
  std::shared_ptr<client::ClientCore> core;
  {
    std::lock_guard lock(mu_);
    o.device_id = device_id_;
    if (!error.empty() && !cancelled_locked()) fail_locked(rc::kPlatformRejected, error);
    if (!cancelled_locked() && !fail_) {
      core = std::make_shared<client::ClientCore>(std::move(o), make_env());
      core_ = core;
    }
  }
  Status<client::ClientError> result;
  if (core) result = core->run();
  std::lock_guard lock(mu_);
  running_ = false;
  core_.reset();
  live_ = nullptr;
  cv_.notify_all();
  if (!result.ok() && !fail_ && state_ != State::kStopping) {
    fail_locked(rc::kPlatformRejected, run_end_locked(result.error()));
  }
  if (fail_) return rc::kPlatformRejected;
  if (state_ != State::kFailed) set_state_locked(State::kStopped);
  return rc::kOk;
}

std::int32_t FfiClient::stop() {
  std::shared_ptr<client::ClientCore> core;
  {
    std::lock_guard lock(mu_);
    if (state_ == State::kStopped) return rc::kOk;
    if (state_ != State::kStopping) {
      set_state_locked(State::kStopping);
    }
    if (!running_) set_state_locked(State::kStopped);
    core = core_;
    cv_.notify_all();
  }
  if (core) core->stop();
  return rc::kOk;
}

void FfiClient::shutdown() {
  std::shared_ptr<client::ClientCore> core;
  {
    std::lock_guard lock(mu_);
    cancel_ = true;
    core = core_;
    events_.clear();
    tun_fd_.reset();
    cv_.notify_all();
  }
  if (core) core->stop();
}

std::int32_t FfiClient::set_device_id(const handshake::DeviceId& id) {
  std::lock_guard lock(mu_);
  if (running_) return rc::kInvalidState;
  device_id_ = id;
  return rc::kOk;
}

std::int32_t FfiClient::set_tun_fd(std::uint64_t generation, int fd) {
  if ((caps_ & platform::kTunFd) == 0) return rc::kUnsupported;
  if (fd < 0) return rc::kInvalidArgument;
  std::lock_guard lock(mu_);
  if (state_ != State::kAwaitingNetwork || pending_plan_ == 0) return rc::kInvalidState;
  if (generation != pending_plan_) return rc::kStalePlan;
  const int dup = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (dup < 0) return rc::kInvalidArgument;  // not an open fd
  tun_fd_.reset(dup);
  tun_fd_generation_ = generation;
  return rc::kOk;
}

std::int32_t FfiClient::plan_result(std::uint64_t generation, bool applied, std::string reason) {
  std::lock_guard lock(mu_);
  if (state_ != State::kAwaitingNetwork || !plan_ || plan_->sequence == 0 || plan_->answered) {
    return rc::kInvalidState;
  }
  if (generation != pending_plan_) return rc::kStalePlan;
  const bool has_fd = tun_fd_.valid() && tun_fd_generation_ == generation;
  if (applied && !has_fd && (caps_ & platform::kTunPacketBatch) == 0) {
    return rc::kInvalidState;  // QELI_PLATFORM_TUN_FD: the fd comes before the ACK
  }
  if (events_.room() == 0) return rc::kEventQueueFull;  // room for the state change
  plan_->answered = true;
  plan_->ok = applied;
  plan_->reason = std::move(reason);
  if (applied) {
    // Packet mode unless the app handed over a TUN fd for this generation.
    if (!(tun_fd_.valid() && tun_fd_generation_ == generation)) {
      pipe_ = std::make_shared<PacketPipe>(pending_mtu_, std::size_t{4} << 20, pending_gso_);
    }
    running_generation_ = generation;
    set_state_locked(State::kRunning);
  }
  cv_.notify_all();
  return rc::kOk;
}

std::int32_t FfiClient::answer_locked(std::optional<Request>& req, std::uint64_t sequence, bool ok,
                                      std::string reason) {
  if (!req || req->sequence == 0 || req->sequence != sequence || req->answered) {
    return rc::kStaleRequest;  // unknown, answered, or cancelled
  }
  *req = Request{sequence, true, ok, std::move(reason)};
  cv_.notify_all();
  return rc::kOk;
}

std::int32_t FfiClient::protect_result(std::uint64_t sequence, bool ok, std::string reason) {
  std::lock_guard lock(mu_);
  return answer_locked(protect_, sequence, ok, std::move(reason));
}

std::int32_t FfiClient::identity_result(std::uint64_t sequence, bool ok, std::string reason) {
  std::lock_guard lock(mu_);
  return answer_locked(identity_, sequence, ok, std::move(reason));
}

State FfiClient::state() const {
  std::lock_guard lock(mu_);
  return state_;
}

Stats FfiClient::stats() const {
  std::lock_guard lock(mu_);
  Stats s = totals_;
  s.state = static_cast<std::uint32_t>(state_);
  if (live_ != nullptr) {
    s.tx_packets += live_->get(tunnel::SessionCounter::kTxPackets);
    s.tx_bytes += live_->get(tunnel::SessionCounter::kTxBytes);
    s.rx_packets += live_->get(tunnel::SessionCounter::kRxPackets);
    s.rx_bytes += live_->get(tunnel::SessionCounter::kRxBytes);
  }
  if (pipe_) s.internal_drops += pipe_->dropped();
  s.reconnects = 0;  // one connection per run: the app counts its reconnects (0.7.16: 0)
  if (state_ == State::kRunning) {
    s.uptime_ms = static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                                 std::chrono::steady_clock::now() - running_since_)
                                                 .count());
  }
  return s;
}

std::int32_t FfiClient::pipe_for(std::uint64_t generation, std::shared_ptr<PacketPipe>& out) const {
  std::lock_guard lock(mu_);
  if (state_ != State::kRunning || !pipe_) {
    return (caps_ & platform::kTunPacketBatch) == 0 ? rc::kUnsupported : rc::kInvalidState;
  }
  if (generation != running_generation_) return rc::kStalePlan;
  out = pipe_;
  return rc::kOk;
}

}  // namespace qeli::ffi
