// What `qeli status` shows for a running client: its state, the server, the tunnel's
// addresses, the traffic totals and rates, and since when (docs/OPERATIONS.md "Client
// status"). The client's thread writes it at each step of its loop; the status socket's
// thread reads it. All members are guarded by one mutex; the session counters (and a UDP
// session's socket figures) are atomics that the data path updates without it.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

#include "client/core/client_state.h"
#include "control/api.h"
#include "transport/udp_rx_stats.h"
#include "tunnel/session_counters.h"

namespace qeli::client {

struct TunnelInfo {
  std::string server_address;  ///< "203.0.113.7:443", the address in use
  std::string dev;
  std::string client_cidr;   ///< "10.9.0.2/24"
  std::string client_cidr6;  ///< "fd00:9::2/64" with IPv6 inside, else empty
  std::string server_tunnel_ip;
  std::size_t mtu = 0;
  bool full_tunnel = false;
  std::string extensions;  ///< "gso, session-close"
};

class ClientStatus {
 public:
  using WallClock = std::chrono::system_clock;
  using Steady = std::chrono::steady_clock;

  /// `server` = "host:port" as configured; `user`, `proto`, `mode` as configured.
  ClientStatus(std::string server, std::string user, std::string proto, std::string mode);

  void set_state(ClientState s, std::string detail = {});
  /// The tunnel is up; `counters` stay valid until disconnected().
  void connected(TunnelInfo info, const tunnel::SessionCounters* counters);
  /// The session (after connected()) runs over UDP: `socket`'s figures join the report
  /// until disconnected(), and stay valid until then.
  void udp_started(const transport::UdpRxStats* socket);
  /// The session ended with `why`; its totals are kept as the last session's.
  void disconnected(const std::string& why);

  /// Records a counter sample for the rates (call about once a second).
  void sample(Steady::time_point now);
  /// The whole status (what the status socket answers; docs/OPERATIONS.md).
  control::ClientStatusReport report(Steady::time_point now, WallClock::time_point wall) const;
  /// report() in its wire form (schema in docs/OPERATIONS.md).
  nlohmann::json to_json(Steady::time_point now, WallClock::time_point wall) const;

 private:
  struct Sample {
    Steady::time_point at;
    std::uint64_t rx_bytes, tx_bytes;
  };
  mutable std::mutex mu_;
  const std::string server_, user_, proto_, mode_;
  ClientState state_ = ClientState::kStarting;
  std::string detail_;
  WallClock::time_point state_since_ = WallClock::now();
  WallClock::time_point started_ = WallClock::now();
  TunnelInfo tunnel_;
  const tunnel::SessionCounters* counters_ = nullptr;
  const transport::UdpRxStats* udp_ = nullptr;  ///< a UDP session's socket, else null
  WallClock::time_point connected_since_{};
  std::uint64_t sessions_ = 0;
  std::string last_end_;
  std::deque<Sample> samples_;  ///< the last ~10 s, oldest first
};

}  // namespace qeli::client
