#include "client/client_status.h"

#include <utility>

namespace qeli::client {
namespace {

constexpr auto kRateWindow = std::chrono::seconds(10);

std::int64_t unix_secs(std::chrono::system_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
}

}  // namespace

const char* to_string(ClientState s) {
  switch (s) {
    case ClientState::kStarting: return "starting";
    case ClientState::kConnecting: return "connecting";
    case ClientState::kConnected: return "connected";
    case ClientState::kWaiting: return "waiting to reconnect";
    case ClientState::kStopping: return "stopping";
  }
  return "unknown";
}

ClientStatus::ClientStatus(std::string server, std::string user, std::string proto,
                           std::string mode)
    : server_(std::move(server)),
      user_(std::move(user)),
      proto_(std::move(proto)),
      mode_(std::move(mode)) {}

void ClientStatus::set_state(ClientState s, std::string detail) {
  std::lock_guard<std::mutex> lock(mu_);
  if (s != state_) state_since_ = WallClock::now();
  state_ = s;
  detail_ = std::move(detail);
}

void ClientStatus::connected(TunnelInfo info, const engine::SessionCounters* counters) {
  std::lock_guard<std::mutex> lock(mu_);
  tunnel_ = std::move(info);
  counters_ = counters;
  state_ = ClientState::kConnected;
  detail_.clear();
  state_since_ = connected_since_ = WallClock::now();
  ++sessions_;
  samples_.clear();
}

void ClientStatus::disconnected(const std::string& why) {
  std::lock_guard<std::mutex> lock(mu_);
  counters_ = nullptr;
  last_end_ = why;
  samples_.clear();
}

void ClientStatus::sample(Steady::time_point now) {
  std::lock_guard<std::mutex> lock(mu_);
  if (counters_ == nullptr) return;
  samples_.push_back({now, counters_->rx_bytes.load(), counters_->tx_bytes.load()});
  while (samples_.size() > 2 && now - samples_[1].at >= kRateWindow) samples_.pop_front();
}

nlohmann::json ClientStatus::to_json(Steady::time_point now, WallClock::time_point wall) const {
  std::lock_guard<std::mutex> lock(mu_);
  nlohmann::json j{{"state", to_string(state_)},
                   {"state_since", unix_secs(state_since_)},
                   {"server", server_},
                   {"user", user_},
                   {"proto", proto_},
                   {"mode", mode_},
                   {"started", unix_secs(started_)},
                   {"sessions", sessions_},
                   {"now", unix_secs(wall)}};
  if (!detail_.empty()) j["detail"] = detail_;
  if (!last_end_.empty()) j["last_session_end"] = last_end_;
  if (counters_ != nullptr) {
    const std::uint64_t rx = counters_->rx_bytes.load(), tx = counters_->tx_bytes.load();
    j["server_address"] = tunnel_.server_address;
    j["dev"] = tunnel_.dev;
    j["tunnel_address"] = tunnel_.client_cidr;
    j["server_tunnel_address"] = tunnel_.server_tunnel_ip;
    j["mtu"] = tunnel_.mtu;
    j["full_tunnel"] = tunnel_.full_tunnel;
    j["extensions"] = tunnel_.extensions;
    j["connected_since"] = unix_secs(connected_since_);
    j["rx_bytes"] = rx;
    j["tx_bytes"] = tx;
    j["rx_packets"] = counters_->rx_packets.load();
    j["tx_packets"] = counters_->tx_packets.load();
    // Bytes per second over the last ~10 s (from the oldest sample kept to now).
    double rx_rate = 0, tx_rate = 0;
    if (!samples_.empty()) {
      const double secs = std::chrono::duration<double>(now - samples_.front().at).count();
      if (secs > 0.2) {
        rx_rate = static_cast<double>(rx - samples_.front().rx_bytes) / secs;
        tx_rate = static_cast<double>(tx - samples_.front().tx_bytes) / secs;
      }
    }
    j["rx_bytes_per_sec"] = static_cast<std::uint64_t>(rx_rate);
    j["tx_bytes_per_sec"] = static_cast<std::uint64_t>(tx_rate);
  }
  return j;
}

}  // namespace qeli::client
