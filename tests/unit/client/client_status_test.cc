// What `qeli status` reports (client/client_status.h) and where its socket lives.
#include "client/client_status.h"

#include <gtest/gtest.h>

#include "client/status_service.h"

namespace qeli::client {
namespace {

using std::chrono::seconds;

TEST(client_status, states_and_tunnel) {
  ClientStatus s("vpn.example:443", "alice", "tcp", "fake-tls");
  const auto t0 = std::chrono::steady_clock::now();
  auto j = s.to_json(t0, std::chrono::system_clock::now());
  EXPECT_EQ(j["state"], "starting");
  EXPECT_EQ(j["server"], "vpn.example:443");
  EXPECT_FALSE(j.contains("tunnel_address"));

  s.set_state(ClientState::kConnecting);
  EXPECT_EQ(s.to_json(t0, std::chrono::system_clock::now())["state"], "connecting");

  tunnel::SessionCounters c;
  TunnelInfo info;
  info.server_address = "203.0.113.7:443";
  info.dev = "vpn0";
  info.client_cidr = "10.9.0.2/24";
  info.server_tunnel_ip = "10.9.0.1";
  info.mtu = 1400;
  s.connected(info, &c);
  // Rates: 1000 B/s down, 500 B/s up over the samples kept.
  s.sample(t0);
  c.add(tunnel::SessionCounter::kRxBytes, 4000);
  c.add(tunnel::SessionCounter::kTxBytes, 2000);
  s.sample(t0 + seconds(2));
  j = s.to_json(t0 + seconds(4), std::chrono::system_clock::now());
  EXPECT_EQ(j["state"], "connected");
  EXPECT_EQ(j["tunnel_address"], "10.9.0.2/24");
  EXPECT_EQ(j["server_tunnel_address"], "10.9.0.1");
  EXPECT_EQ(j["server_address"], "203.0.113.7:443");
  EXPECT_EQ(j["rx_bytes"], 4000);
  EXPECT_EQ(j["rx_bytes_per_sec"], 1000);
  EXPECT_EQ(j["tx_bytes_per_sec"], 500);
  EXPECT_EQ(j["sessions"], 1);
  EXPECT_GT(j["connected_since"].get<std::int64_t>(), 0);

  s.disconnected("peer closed the connection");
  s.set_state(ClientState::kWaiting, "reconnecting in 750 ms");
  j = s.to_json(t0 + seconds(5), std::chrono::system_clock::now());
  EXPECT_EQ(j["state"], "waiting to reconnect");
  EXPECT_EQ(j["detail"], "reconnecting in 750 ms");
  EXPECT_EQ(j["last_session_end"], "peer closed the connection");
  EXPECT_FALSE(j.contains("rx_bytes"));  // the counters are gone with the session
}

// A UDP session's socket figures are read from its atomics at each report, and leave
// with the session; a TCP session (no udp_started) has none.
TEST(client_status, udp_socket_figures_only_for_udp_sessions) {
  ClientStatus s("h:1", "u", "udp", "fake-tls");
  tunnel::SessionCounters c;
  TunnelInfo info;
  info.client_cidr = "10.9.0.2/24";
  s.connected(info, &c);
  const auto t0 = std::chrono::steady_clock::now();
  auto j = s.to_json(t0, std::chrono::system_clock::now());
  EXPECT_FALSE(j.contains("udp_recv_buffer_bytes"));  // TCP so far

  transport::UdpRxStats socket;
  socket.recv_buffer_bytes = 8388608;
  s.udp_started(&socket);
  j = s.to_json(t0, std::chrono::system_clock::now());
  EXPECT_EQ(j["udp_recv_buffer_bytes"], 8388608);
  EXPECT_EQ(j["udp_kernel_drops"], 0);
  EXPECT_EQ(j["udp_buffer_grows"], 0);
  socket.kernel_drops += 40;
  socket.buffer_grows += 1;
  socket.recv_buffer_bytes = 16777216;
  j = s.to_json(t0, std::chrono::system_clock::now());
  EXPECT_EQ(j["udp_kernel_drops"], 40);
  EXPECT_EQ(j["udp_buffer_grows"], 1);
  EXPECT_EQ(j["udp_recv_buffer_bytes"], 16777216);

  s.disconnected("peer closed the connection");
  s.set_state(ClientState::kConnecting);
  EXPECT_FALSE(s.to_json(t0, std::chrono::system_clock::now()).contains("udp_kernel_drops"));
  // The next session starts without the last one's socket.
  s.connected(info, &c);
  EXPECT_FALSE(s.to_json(t0, std::chrono::system_clock::now()).contains("udp_kernel_drops"));
}

TEST(client_status, rate_window_is_about_ten_seconds) {
  ClientStatus s("h:1", "u", "udp", "fake-tls");
  tunnel::SessionCounters c;
  s.connected(TunnelInfo{}, &c);
  const auto t0 = std::chrono::steady_clock::now();
  // 100 B/s for 30 s, then 10000 B/s for 10 s: the rate shows the recent traffic.
  for (int i = 0; i <= 40; ++i) {
    s.sample(t0 + seconds(i));
    const std::uint64_t step = i < 30 ? 100 : 10000;
    c.add(tunnel::SessionCounter::kRxBytes, step);
  }
  const auto j = s.to_json(t0 + seconds(40), std::chrono::system_clock::now());
  EXPECT_GT(j["rx_bytes_per_sec"].get<std::uint64_t>(), 8000U);
}

TEST(client_status, socket_path_per_dev_and_namespace) {
  EXPECT_EQ(status_socket_path("vpn0", ""), "/run/qeli/client-vpn0.sock");
  EXPECT_EQ(status_socket_path("wg1", "@office"), "/run/qeli/client-wg1@office.sock");
}

}  // namespace
}  // namespace qeli::client
