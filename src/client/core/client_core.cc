// The connect loop: connect_once() until stopped, each ending judged — fatal close
// reasons and repeated rejections stop it, anything else is retried after an
// exponential back-off with jitter (reset once the server took us in).
#include "client/core/client_core.h"

#include <poll.h>

#include <algorithm>
#include <exception>

#include "client/core/connector.h"
#include "client/core/failure_hint.h"
#include "crypto/random.h"
#include "wire/modes.h"

namespace qeli::client {
namespace {

Unexpected<ClientError> fatal(std::string message) {
  return fail(ClientError{ClientErrc::kFatal, std::move(message)});
}

}  // namespace

ClientCore::ClientCore(ClientCoreOptions options, ClientEnv env)
    : options_(std::move(options)), env_(std::move(env)) {}

ClientCore::~ClientCore() {
  stop();
  if (thread_.joinable()) thread_.join();
}

Status<ClientError> ClientCore::check_mode(const config::ClientConfig& cfg) {
  // What this build carries: the mode table (a mode whose layers are not built yet
  // would otherwise fall back to another disguise without a word).
  if (const auto why = wire::refusal(config::carrier_of(cfg.proto), config::to_string(cfg.mode));
      !why.empty()) {
    return fail(ClientError{ClientErrc::kBadConfig, "mode " + why});
  }
  if (config::mode_spec(cfg.proto, cfg.mode) == nullptr) {
    return fail(ClientError{ClientErrc::kBadConfig, "no such mode for this transport"});
  }
  return {};
}

Status<ClientError> ClientCore::check(const ClientCoreOptions& options, const ClientEnv& env) {
  if (auto st = check_mode(options.config); !st.ok()) return st;
  if (options.servers.empty()) {
    return fail(ClientError{ClientErrc::kBadConfig, "no address for the server"});
  }
  if (!env.open_tunnel) {
    return fail(ClientError{ClientErrc::kBadConfig, "nothing opens the tunnel (open_tunnel)"});
  }
  return {};
}

bool ClientCore::claim() {
  bool expected = false;
  if (!claimed_.compare_exchange_strong(expected, true)) return false;
  running_ = true;
  return true;
}

Status<ClientError> ClientCore::run() {
  if (!claim())
    return fail(ClientError{ClientErrc::kAlreadyRunning, "the client runs or ran already"});
  return run_claimed();
}

Status<ClientError> ClientCore::start() {
  if (auto st = check(options_, env_); !st.ok()) return st;
  if (!claim())
    return fail(ClientError{ClientErrc::kAlreadyRunning, "the client runs or ran already"});
  try {
    thread_ = std::thread([this] { thread_result_ = run_claimed(); });
  } catch (const std::exception& e) {
    running_ = false;
    return fail(ClientError{ClientErrc::kInternal, e.what()});
  }
  return {};
}

Status<ClientError> ClientCore::join() {
  if (thread_.joinable()) thread_.join();
  return thread_result_;
}

Result<std::chrono::milliseconds, ClientError> ClientCore::probe_udp(
    ClientCoreOptions options, ClientEnv env, std::chrono::milliseconds timeout, int attempts) {
  try {
    if (options.config.proto != config::Transport::kUdp) {
      return fail(ClientError{ClientErrc::kBadConfig, "not a UDP profile"});
    }
    if (options.servers.empty()) return fail(ClientError{ClientErrc::kBadConfig, "no address"});
    ClientCore core(std::move(options), std::move(env));
    const CoreLog log(core.env_.log);
    Connector connector(core, log);
    auto t = connector.probe_datagram(timeout, attempts);
    if (!t.ok()) return fail(ClientError{ClientErrc::kGaveUp, t.error()});
    return *t;
  } catch (const std::exception& e) {
    return fail(ClientError{ClientErrc::kInternal, e.what()});
  }
}

void ClientCore::stop() {
  {
    std::lock_guard lock(mu_);
    if (running_) status_.state = ClientState::kStopping;
  }
  stop_.stop();
}

ClientCoreStatus ClientCore::status() const {
  std::lock_guard lock(mu_);
  ClientCoreStatus s = status_;
  s.running = running_.load();
  if (counters_) {
    s.tx_packets = counters_->get(tunnel::SessionCounter::kTxPackets);
    s.tx_bytes = counters_->get(tunnel::SessionCounter::kTxBytes);
    s.rx_packets = counters_->get(tunnel::SessionCounter::kRxPackets);
    s.rx_bytes = counters_->get(tunnel::SessionCounter::kRxBytes);
  }
  return s;
}

void ClientCore::set_state(ClientState s, const std::string& detail) {
  {
    std::lock_guard lock(mu_);
    status_.state = s;
    status_.detail = detail;
  }
  if (env_.on_state) env_.on_state(s, detail);
}

void ClientCore::connected(const TunnelConfig& tunnel,
                           std::shared_ptr<const tunnel::SessionCounters> counters) {
  {
    std::lock_guard lock(mu_);
    status_.tunnel = tunnel;
    status_.server = tunnel.server;
    ++status_.sessions;
    counters_ = std::move(counters);
  }
  set_state(ClientState::kConnected);
}

void ClientCore::disconnected() {
  std::lock_guard lock(mu_);
  status_.tunnel.reset();
}

Status<ClientError> ClientCore::run_claimed() {
  Status<ClientError> result;
  // The API edge: nothing thrown inside gets out.
  try {
    result = check(options_, env_);
    if (result.ok()) result = connect_loop();
  } catch (const std::exception& e) {  // out of memory, or a bug
    result = fail(ClientError{ClientErrc::kInternal, e.what()});
  } catch (...) {
    result = fail(ClientError{ClientErrc::kInternal, "unknown exception"});
  }
  {
    std::lock_guard lock(mu_);
    if (!result.ok()) status_.error = result.error();
    running_ = false;
  }
  return result;
}

Status<ClientError> ClientCore::connect_loop() {
  const config::ClientConfig& cfg = options_.config;
  const CoreLog log(env_.log);
  Connector c(*this, log);
  const std::string& endpoint = c.endpoint_name();
  auto delay = std::chrono::milliseconds(cfg.reconnect_base_delay);
  std::int64_t failures = 0;
  int rejections = 0;  // consecutive; a network failure neither counts nor resets
  while (!stop_.stopped()) {
    (void)c.connect_once();
    if (stop_.stopped()) break;
    const Connector::Attempt& attempt = c.attempt();
    if (!attempt.fatal.empty()) return fatal(attempt.fatal);
    if (attempt.authenticated) rejections = 0;
    if (attempt.closed == wire::CloseReason::kDisabled) {
      return fatal("the server disabled user '" + cfg.user + "' (qeli disable-user): not " +
                   "reconnecting; the operator can lift it with `qeli enable-user " + cfg.user +
                   "`");
    }
    if (attempt.closed == wire::CloseReason::kQuotaExhausted) {
      return fatal("user '" + cfg.user + "' used up its data quota (data_limit_gb) on " + endpoint +
                   ": not reconnecting; the operator can reset it with " + "`qeli usage --reset " +
                   cfg.user + "` or raise the limit");
    }
    if (attempt.closed == wire::CloseReason::kCredentialsChanged) {
      return fatal("the server changed the password of user '" + cfg.user +
                   "' (or removed the user): not reconnecting with the old one; ask the "
                   "operator for a new link (`qeli share-link " +
                   cfg.user + "`)");
    }
    if (attempt.rejected && ++rejections >= kMaxRejections) {
      return fatal(rejected_too_often(rejections, endpoint, cfg.user));
    }
    if (!cfg.reconnect) return fail(ClientError{ClientErrc::kGaveUp, ""});
    if (attempt.authenticated) {
      // The server took us in: whatever ended the session (a quick server restart, a
      // path change), the next attempt starts from the base delay again.
      delay = std::chrono::milliseconds(cfg.reconnect_base_delay);
      failures = 0;
    } else if (++failures > cfg.reconnect_retries && cfg.reconnect_retries >= 0) {
      return fail(ClientError{ClientErrc::kGaveUp,
                              "giving up after " + std::to_string(failures) + " attempts"});
    }
    // Exponential backoff with jitter (±25%), capped.
    const auto base = std::chrono::duration_cast<std::chrono::milliseconds>(delay);
    const auto jitter =
        crypto::system_rng().uniform(0, static_cast<std::uint64_t>(base.count() / 2));
    const auto wait = base * 3 / 4 + std::chrono::milliseconds(jitter);
    log.info("reconnecting in {} ms", wait.count());
    set_state(ClientState::kWaiting, "reconnecting in " + std::to_string(wait.count()) + " ms");
    pollfd p{stop_.fd(), POLLIN, 0};
    ::poll(&p, 1, static_cast<int>(wait.count()));
    delay = std::min<std::chrono::milliseconds>(delay * 2, cfg.reconnect_max_delay);
    // Before a reconnect: the server's name may resolve to other addresses now.
    if (!stop_.stopped() && env_.refresh_servers) {
      if (auto servers = env_.refresh_servers(); !servers.empty())
        c.set_servers(std::move(servers));
    }
  }
  return {};
}

}  // namespace qeli::client
