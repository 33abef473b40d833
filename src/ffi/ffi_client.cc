#include "ffi/ffi_client.h"

#include <fcntl.h>
#include <unistd.h>

#include <utility>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "base/bytes.h"
#include "client/client_hooks.h"
#include "ffi/network_plan.h"
#include "tunio/tun_device.h"

namespace qeli::ffi {

namespace {

constexpr std::size_t kLogLines = 16;

// 0.7.16's words when a plan needs a QELI_PLATFORM_* bit the app did not declare.
std::string missing_caps(std::uint64_t missing) {
  return fmt::format("platform is missing required capabilities 0x{:x}", missing);
}

Event state_event(State s) {
  Event e;
  e.kind = EventKind::kStateChanged;
  e.state = static_cast<std::uint32_t>(s);
  return e;
}

}  // namespace

// The session's TUN as the core sees it: the app's fd or the packet pipe. Its end folds
// the session's counters (and a UDP socket's) into the handle's stats and notes why it
// ended (the run's ERROR text when no stop ended it: one connection per run, the app
// reconnects). What it set on the handle it takes back only while the handle still has
// it (a stop and a new start may have moved on).
class FfiClient::PlanTunnel final : public client::Tunnel {
 public:
  PlanTunnel(FfiClient& owner, std::uint64_t epoch, std::unique_ptr<tunio::TunDevice> device,
             std::shared_ptr<PacketPipe> pipe, bool ipv6)
      : owner_(owner),
        epoch_(epoch),
        device_(std::move(device)),
        pipe_(std::move(pipe)),
        ipv6_(ipv6) {}
  ~PlanTunnel() override {
    std::lock_guard lock(owner_.mu_);
    // Not ended (the data phase threw): the figures may be gone, so they are not read.
    owner_.stats_.forget(counters_, udp_);
    if (pipe_) owner_.stats_.add_internal_drops(pipe_->dropped());
    if (pipe_ && owner_.pipe_ == pipe_) {
      owner_.pipe_.reset();
      owner_.running_generation_ = 0;
    }
  }
  tunio::TunDevice& device() override { return pipe_ ? *pipe_ : *device_; }
  bool carries_ipv6() const override { return ipv6_; }
  void started(const tunnel::SessionCounters& counters) override {
    std::lock_guard lock(owner_.mu_);
    counters_ = &counters;
    owner_.stats_.attach(counters);
  }
  void started_udp(const transport::UdpRxStats& socket) override {
    std::lock_guard lock(owner_.mu_);
    udp_ = &socket;
    owner_.stats_.attach_udp(socket);
  }
  // While the counters and the socket still live (the core drops them after this): into
  // the handle's sums.
  void ended(const std::string& why) override {
    std::lock_guard lock(owner_.mu_);
    if (owner_.epoch_ == epoch_) owner_.session_end_ = why;  // a later start's run: not ours
    owner_.stats_.end(counters_, udp_);
    counters_ = nullptr;
    udp_ = nullptr;
  }

 private:
  FfiClient& owner_;
  const std::uint64_t epoch_;  ///< the start its run belongs to
  std::unique_ptr<tunio::TunDevice> device_;
  std::shared_ptr<PacketPipe> pipe_;
  bool ipv6_;  ///< the plan gave the app IPv6 (x_ip6 negotiated, MTU ≥ 1280)
  const tunnel::SessionCounters* counters_ = nullptr;  // guarded by owner_.mu_
  const transport::UdpRxStats* udp_ = nullptr;         // a UDP session's; owner_.mu_
};

FfiClient::FfiClient(config::ClientConfig config, std::uint64_t platform_caps,
                     std::uint32_t capacity)
    : config_(std::move(config)), caps_(platform_caps), events_(capacity) {
  // 0.7.16 queues STATE_CHANGED(CREATED) as the handle's first event (sequence 1); Android
  // requires exactly [CREATED, CONNECTING] after start.
  events_.try_push(state_event(State::kCreated));  // capacity >= 2: always room
}

FfiClient::~FfiClient() { shutdown(); }

void FfiClient::set_state_locked(State s) {
  if (s == state_) return;
  state_ = s;
  events_.force_push(state_event(s));
  cv_.notify_all();
}

void FfiClient::fail_locked(std::string_view message) {
  if (fail_) return;
  fail_ = true;
  drop_epoch_locked();
  // The ERROR event (carrying FAILED) first, then the state change, as 0.7.16 orders them.
  // A failure must get through: force_push makes room (0.7.16 drops the oldest too).
  state_ = State::kFailed;
  Event e;
  e.kind = EventKind::kError;
  e.state = static_cast<std::uint32_t>(State::kFailed);
  e.format = PayloadFormat::kUtf8;
  e.error_code = rc::kPlatformRejected;
  e.payload = error_text(message);
  events_.force_push(std::move(e));
  events_.force_push(state_event(State::kFailed));
  if (core_) core_->stop();
  cv_.notify_all();
}

void FfiClient::drop_epoch_locked() {
  protect_.reset();
  identity_.reset();
  plan_.reset();
  pending_plan_ = 0;
  tun_fd_.reset();
  pipe_.reset();
  running_generation_ = 0;
  cv_.notify_all();
}

void FfiClient::note_log(std::uint64_t epoch, client::LogLevel level, const std::string& line) {
  std::lock_guard lock(mu_);
  if (epoch != epoch_) return;  // a stopped run winding down
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
  if (cancel_ || (state_ != State::kCreated && state_ != State::kStopped)) {
    return rc::kInvalidState;
  }
  if (events_.room() == 0) return rc::kEventQueueFull;
  // A new epoch: a run of an earlier one may still be winding down; it sees it is over.
  ++epoch_;
  stop_requested_ = false;
  fail_ = false;
  drop_epoch_locked();
  set_state_locked(State::kConnecting);
  return rc::kOk;
}

bool FfiClient::request_locked(std::unique_lock<std::mutex>& lock, std::uint64_t epoch, Event e,
                               std::shared_ptr<Request>& slot,
                               const std::shared_ptr<Request>& req) {
  cv_.wait(lock, [&] { return !live_locked(epoch) || events_.room() > 0; });
  if (!live_locked(epoch)) return false;
  e.state = static_cast<std::uint32_t>(state_);
  req->sequence = events_.try_push(std::move(e));
  slot = req;
  return true;
}

bool FfiClient::await_locked(std::unique_lock<std::mutex>& lock, std::uint64_t epoch,
                             const std::shared_ptr<Request>& req,
                             std::optional<std::chrono::steady_clock::time_point> deadline,
                             std::string_view on_timeout) {
  const auto done = [&] { return !live_locked(epoch) || req->answered; };
  if (!deadline) {
    cv_.wait(lock, done);
  } else if (!cv_.wait_until(lock, *deadline, done)) {
    fail_locked(on_timeout);  // unanswered in time: the run fails, a late answer is stale
    return false;
  }
  return live_locked(epoch) && req->answered && req->ok;
}

std::int32_t FfiClient::refuse_locked(std::shared_ptr<Request>& slot, std::uint64_t sequence,
                                      bool ok, std::string_view reason, const char* fixed) {
  // A refusal is ERROR + FAILED now: it needs two slots, and without them the request
  // stays unanswered (0.7.16: EVENT_QUEUE_FULL, poll and answer again).
  if (!ok && events_.room() < 2) return rc::kEventQueueFull;
  if (!slot || slot->sequence != sequence || slot->answered) return rc::kStaleRequest;
  slot->answered = true;
  slot->ok = ok;
  slot.reset();
  if (!ok) fail_locked(reason.empty() ? std::string_view(fixed) : reason);
  cv_.notify_all();
  return rc::kOk;
}

client::ClientEnv FfiClient::make_env(std::uint64_t epoch) {
  client::ClientEnv env;
  // The profile's `ipv6` (default on) and an app that applies IPv6 plans.
  env.ipv6_inside = config_.ipv6 && (caps_ & platform::kIpv6) != 0;
  if ((caps_ & platform::kSocketProtect) != 0) {
    env.protect = [this, epoch](int fd) {
      std::unique_lock lock(mu_);
      Event e;
      e.kind = EventKind::kSocketProtect;
      e.format = PayloadFormat::kJson;
      e.payload = nlohmann::json{{"fd", fd}}.dump();
      const auto req = std::make_shared<Request>();
      if (!request_locked(lock, epoch, std::move(e), protect_, req)) return false;
      // 0.7.16 waits the profile's `timeout` for the first carrier's protect, and for
      // the others (bonded streams, further addresses) until a stop.
      if (std::exchange(protected_once_, true)) return await_locked(lock, epoch, req);
      const auto timeout = config_.timeout;
      return await_locked(
          lock, epoch, req, std::chrono::steady_clock::now() + timeout,
          fmt::format("platform did not protect the initial carrier within {}s", timeout.count()));
    };
  }
  // QELI_PLATFORM_SERVER_IDENTITY: the app decides on every session's key (its known-hosts
  // policy), pinned or not; without it an unpinned key is trusted for the handle's life.
  if ((caps_ & platform::kServerIdentity) != 0) {
    env.confirm_server = [this, epoch](const handshake::X25519Public& key, bool) -> std::string {
      std::unique_lock lock(mu_);
      Event e;
      e.kind = EventKind::kServerIdentity;
      e.format = PayloadFormat::kJson;
      e.payload =
          nlohmann::json{{"server_id", config_.server.to_string()}, {"public_key", to_hex(key)}}
              .dump();
      const auto req = std::make_shared<Request>();
      if (request_locked(lock, epoch, std::move(e), identity_, req) &&
          await_locked(lock, epoch, req)) {
        return {};
      }
      return "the server's identity was not confirmed";
    };
  }
  env.open_tunnel =
      [this, epoch](
          const client::TunnelConfig& tc) -> Result<std::unique_ptr<client::Tunnel>, std::string> {
    std::unique_lock lock(mu_);
    if (!live_locked(epoch)) return fail(std::string("stopped"));
    PlanInputs in;
    in.generation = ++last_generation_;
    in.fallback_dns = input_.fallback_dns;
    in.connection_log = unapplied_settings(config_);
    in.connection_log.insert(in.connection_log.end(), log_.begin(), log_.end());
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
    auto plan = build_network_plan(tc, config_, in);
    if (!plan.ok()) {
      fail_locked(plan.error());
      return fail(plan.error());
    }
    if (const std::uint64_t missing = plan->required_caps & ~caps_; missing != 0) {
      fail_locked(missing_caps(missing));
      return fail(missing_caps(missing));
    }
    // STATE_CHANGED(AWAITING_NETWORK) and the plan go in together (0.7.16 needs both
    // slots); the run waits for the app to poll until they fit.
    cv_.wait(lock, [&] { return !live_locked(epoch) || events_.room() >= 2; });
    if (!live_locked(epoch)) return fail(std::string("stopped"));
    if (pending_plan_ != 0) {  // one the app published itself (ABI 1.5's seam)
      fail_locked("publish a second network plan before acknowledging the first");
      return fail(std::string("a plan is pending"));
    }
    Event e;
    e.kind = EventKind::kNetworkPlan;
    e.format = PayloadFormat::kJson;
    e.plan_generation = in.generation;
    e.payload = std::move(plan->json);
    set_state_locked(State::kAwaitingNetwork);
    e.state = static_cast<std::uint32_t>(state_);
    const auto req = std::make_shared<Request>();
    req->sequence = events_.try_push(std::move(e));
    plan_ = req;
    pending_plan_ = in.generation;
    pending_mtu_ = tc.mtu;
    pending_gso_ = tc.gso;
    if (!await_locked(lock, epoch, req, std::chrono::steady_clock::now() + kPlanAckTimeout,
                      fmt::format("platform did not acknowledge NetworkPlan {} within {}s",
                                  in.generation, kPlanAckTimeout.count()))) {
      return fail(std::string("the network plan was not applied"));
    }
    // plan_result() made the pipe (packet mode) and went RUNNING already, so the app
    // may push the moment its answer returned.
    std::unique_ptr<tunio::TunDevice> device;
    std::shared_ptr<PacketPipe> pipe = pipe_;
    if (!pipe) {
      if (!tun_fd_.valid()) {
        fail_locked("platform advertised neither packet IO nor a usable TUN fd");
        return fail(std::string("no TUN"));
      }
      tunio::TunConfig cfg;
      cfg.mtu = tc.mtu;
      cfg.read_mode = tc.read_mode;
      auto tun = tunio::FdTun::adopt(tun_fd_.release(), cfg);
      if (!tun.ok()) {
        fail_locked("the TUN fd: " + tun.error().detail);
        return fail(tun.error().detail);
      }
      device = std::make_unique<tunio::FdTun>(std::move(*tun));
    }
    return std::unique_ptr<client::Tunnel>(
        std::make_unique<PlanTunnel>(*this, epoch, std::move(device), std::move(pipe), in.ipv6));
  };
  env.log = [this, epoch](client::LogLevel level, std::string_view line) {
    if (level >= client::LogLevel::kInfo) note_log(epoch, level, std::string(line));
  };
  return env;
}

std::int32_t FfiClient::run(const RunInputText& text) {
  // 0.7.16 refuses a run without events (PLATFORM_REJECTED): values it does not take, a
  // state other than CONNECTING, a run already active, no device id.
  auto input = check_run_input(text, config_.server.port);
  if (!input.ok()) return rc::kPlatformRejected;
  std::uint64_t epoch = 0;
  {
    std::lock_guard lock(mu_);
    if (cancel_ || state_ != State::kConnecting || run_epoch_ != 0 || !device_id_) {
      return rc::kPlatformRejected;
    }
    // The plan will ask for the kill switch (a full tunnel's): without the capability it
    // could never be applied, so fail now rather than after connecting (0.7.16 fails at
    // the plan with the same words).
    if (plan_kill_switch(config_, config_.gateway) && (caps_ & platform::kKillSwitch) == 0) {
      fail_locked(missing_caps(platform::kKillSwitch));
      return rc::kPlatformRejected;
    }
    epoch = run_epoch_ = epoch_;
    input_ = std::move(*input);
    session_end_.clear();
    last_problem_.clear();
    protected_once_ = false;
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
  {
    std::lock_guard lock(mu_);
    o.servers = input_.carrier_addresses;
  }
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
    o.device_id = *device_id_;
    if (live_locked(epoch)) {
      if (!error.empty()) {
        fail_locked(error);
      } else {
        core = std::make_shared<client::ClientCore>(std::move(o), make_env(epoch));
        core_ = core;
      }
    }
  }
  Status<client::ClientError> result;
  if (core) result = core->run();
  std::lock_guard lock(mu_);
  if (run_epoch_ == epoch) run_epoch_ = 0;
  if (core_ == core) core_.reset();
  cv_.notify_all();
  // Stopped (or freed, or started anew): the run ends quietly, OK (0.7.16's "cancelled").
  if (cancel_ || epoch != epoch_ || stop_requested_) return rc::kOk;
  if (!fail_) {
    fail_locked(result.ok() ? "transport disconnected" : run_end_locked(result.error()));
  }
  return rc::kPlatformRejected;
}

std::int32_t FfiClient::stop() {
  std::shared_ptr<client::ClientCore> core;
  std::int32_t r = rc::kOk;
  {
    std::lock_guard lock(mu_);
    if (state_ == State::kStopped) return rc::kOk;
    // The run is cancelled whatever the queue says: it holds sockets and the TUN.
    stop_requested_ = true;
    core = core_;
    cv_.notify_all();
    if (events_.room() < 2) {
      r = rc::kEventQueueFull;  // 0.7.16: poll, then stop again for STOPPING + STOPPED
    } else {
      run_epoch_ = 0;  // the run winds down on its own; a new start and run may follow
      drop_epoch_locked();
      set_state_locked(State::kStopping);
      set_state_locked(State::kStopped);
    }
  }
  if (core) core->stop();
  return r;
}

void FfiClient::shutdown() {
  std::shared_ptr<client::ClientCore> core;
  {
    std::lock_guard lock(mu_);
    cancel_ = true;
    core = core_;
    drop_epoch_locked();
    events_.clear();
  }
  if (core) core->stop();
}

std::int32_t FfiClient::set_device_id(const std::uint8_t* id, std::size_t len) {
  std::lock_guard lock(mu_);
  if (state_ != State::kCreated && state_ != State::kStopped) return rc::kInvalidState;
  handshake::DeviceId d{};
  if (id == nullptr || len != d.size()) return rc::kInvalidArgument;
  std::copy(id, id + len, d.begin());
  if (std::all_of(d.begin(), d.end(), [](std::uint8_t b) { return b == 0; })) {
    return rc::kInvalidArgument;
  }
  device_id_ = d;
  return rc::kOk;
}

std::int32_t FfiClient::set_tun_fd(std::uint64_t generation, int fd) {
  if ((caps_ & platform::kTunFd) == 0) return rc::kUnsupported;
  std::lock_guard lock(mu_);
  if (pending_plan_ == 0) return rc::kInvalidState;
  if (generation != pending_plan_) return rc::kStalePlan;
  if (state_ != State::kAwaitingNetwork) return rc::kInvalidState;
  if (fd < 0) return rc::kInvalidArgument;
  const int dup = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (dup < 0) return rc::kInvalidArgument;  // not an open fd
  tun_fd_.reset(dup);
  tun_fd_generation_ = generation;
  return rc::kOk;
}

std::int32_t FfiClient::plan_result(std::uint64_t generation, bool applied,
                                    std::string_view reason) {
  std::lock_guard lock(mu_);
  if (state_ != State::kAwaitingNetwork || pending_plan_ == 0) return rc::kInvalidState;
  if (generation != pending_plan_) return rc::kStalePlan;
  const bool has_fd = tun_fd_.valid() && tun_fd_generation_ == generation;
  if (applied && (caps_ & platform::kTunFd) != 0 && !has_fd) {
    return rc::kInvalidState;  // QELI_PLATFORM_TUN_FD: the fd comes before the ACK
  }
  if (events_.room() < (applied ? 1U : 2U)) return rc::kEventQueueFull;
  pending_plan_ = 0;
  if (!applied) {
    if (plan_) plan_->answered = true;  // ok = false: the run's wait ends
    plan_.reset();
    fail_locked(reason.empty() ? std::string_view("platform rejected the network plan") : reason);
    return rc::kOk;
  }
  // Packet mode unless the app handed over a TUN fd for this generation.
  if (!has_fd && (caps_ & platform::kTunPacketBatch) != 0) {
    pipe_ = std::make_shared<PacketPipe>(pending_mtu_, std::size_t{4} << 20, pending_gso_);
  }
  running_generation_ = generation;
  set_state_locked(State::kRunning);
  if (plan_) *plan_ = Request{plan_->sequence, true, true};
  plan_.reset();
  cv_.notify_all();
  return rc::kOk;
}

std::int32_t FfiClient::protect_result(std::uint64_t sequence, bool ok, std::string_view reason) {
  std::lock_guard lock(mu_);
  return refuse_locked(protect_, sequence, ok, reason, "platform rejected socket protection");
}

std::int32_t FfiClient::identity_result(std::uint64_t sequence, bool ok, std::string_view reason) {
  std::lock_guard lock(mu_);
  return refuse_locked(identity_, sequence, ok, reason, "platform rejected the server identity");
}

State FfiClient::state() const {
  std::lock_guard lock(mu_);
  return state_;
}

Stats FfiClient::stats() const {
  std::lock_guard lock(mu_);
  Stats s = stats_.read();
  s.state = static_cast<std::uint32_t>(state_);
  if (pipe_) s.internal_drops += pipe_->dropped();
  s.reconnects = 0;  // one connection per run: the app counts its reconnects (0.7.16: 0)
  // Since the handle was made, in every state (0.7.16).
  s.uptime_ms = static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                               std::chrono::steady_clock::now() - created_)
                                               .count());
  return s;
}

std::int32_t FfiClient::pipe_for(std::uint64_t generation, std::shared_ptr<PacketPipe>& out) const {
  std::lock_guard lock(mu_);
  if (!pipe_) return rc::kInvalidState;  // not running, or no packet mode (0.7.16: no bridge)
  if (generation != running_generation_) return rc::kStalePlan;
  out = pipe_;
  return rc::kOk;
}

}  // namespace qeli::ffi
