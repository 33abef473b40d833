#include "client/client_status.h"

#include "control/api_json.h"

#include <utility>

namespace qeli::client {
namespace {

constexpr auto kRateWindow = std::chrono::seconds(10);

std::int64_t unix_secs(std::chrono::system_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
}

}  // namespace

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

void ClientStatus::connected(TunnelInfo info, const tunnel::SessionCounters* counters) {
  std::lock_guard<std::mutex> lock(mu_);
  tunnel_ = std::move(info);
  counters_ = counters;
  udp_ = nullptr;
  state_ = ClientState::kConnected;
  detail_.clear();
  state_since_ = connected_since_ = WallClock::now();
  ++sessions_;
  samples_.clear();
}

void ClientStatus::udp_started(const transport::UdpRxStats* socket) {
  std::lock_guard<std::mutex> lock(mu_);
  udp_ = socket;
}

void ClientStatus::disconnected(const std::string& why) {
  std::lock_guard<std::mutex> lock(mu_);
  counters_ = nullptr;
  udp_ = nullptr;
  last_end_ = why;
  samples_.clear();
}

void ClientStatus::sample(Steady::time_point now) {
  std::lock_guard<std::mutex> lock(mu_);
  if (counters_ == nullptr) return;
  samples_.push_back({now, counters_->get(tunnel::SessionCounter::kRxBytes),
                      counters_->get(tunnel::SessionCounter::kTxBytes)});
  while (samples_.size() > 2 && now - samples_[1].at >= kRateWindow) samples_.pop_front();
}

control::ClientStatusReport ClientStatus::report(Steady::time_point now,
                                                 WallClock::time_point wall) const {
  std::lock_guard<std::mutex> lock(mu_);
  control::ClientStatusReport r;
  r.state = to_string(state_);
  r.detail = detail_;
  r.state_since = unix_secs(state_since_);
  r.server = server_;
  r.user = user_;
  r.proto = proto_;
  r.mode = mode_;
  r.started = unix_secs(started_);
  r.sessions = sessions_;
  r.now = unix_secs(wall);
  r.last_session_end = last_end_;
  if (counters_ != nullptr) {
    control::ClientTunnelStatus t;
    t.rx_bytes = counters_->get(tunnel::SessionCounter::kRxBytes);
    t.tx_bytes = counters_->get(tunnel::SessionCounter::kTxBytes);
    t.server_address = tunnel_.server_address;
    t.dev = tunnel_.dev;
    t.tunnel_address = tunnel_.client_cidr;
    t.tunnel_address6 = tunnel_.client_cidr6;
    t.server_tunnel_address = tunnel_.server_tunnel_ip;
    t.mtu = tunnel_.mtu;
    t.full_tunnel = tunnel_.full_tunnel;
    t.extensions = tunnel_.extensions;
    t.connected_since = unix_secs(connected_since_);
    t.rx_packets = counters_->get(tunnel::SessionCounter::kRxPackets);
    t.tx_packets = counters_->get(tunnel::SessionCounter::kTxPackets);
    // Bytes per second over the last ~10 s (from the oldest sample kept to now).
    if (!samples_.empty()) {
      const double secs = std::chrono::duration<double>(now - samples_.front().at).count();
      if (secs > 0.2) {
        t.rx_bytes_per_sec = static_cast<std::uint64_t>(
            static_cast<double>(t.rx_bytes - samples_.front().rx_bytes) / secs);
        t.tx_bytes_per_sec = static_cast<std::uint64_t>(
            static_cast<double>(t.tx_bytes - samples_.front().tx_bytes) / secs);
      }
    }
    if (udp_ != nullptr) {
      const transport::UdpRxFigures f = udp_->read();
      t.udp = control::UdpSocketFigures{f.kernel_drops, f.buffer_grows, f.recv_buffer_bytes};
    }
    r.tunnel = std::move(t);
  }
  return r;
}

nlohmann::json ClientStatus::to_json(Steady::time_point now, WallClock::time_point wall) const {
  return report(now, wall);
}

}  // namespace qeli::client
