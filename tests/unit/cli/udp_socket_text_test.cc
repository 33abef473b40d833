// The UDP socket line of `qeli status` (a client's UDP session) and `qeli stats` (a UDP
// profile's workers), run in-process against a fake control service on a real control
// socket: the figures cross the JSON codec and come out in one wording, only for UDP.
#include "cli/udp_socket_text.h"

#include <gtest/gtest.h>

#include <sstream>

#include "cli/cli.h"
#include "control/control_socket.h"
#include "control/peer_access.h"
#include "crypto/random.h"
#include "temp_dir.h"

namespace qeli::cli {
namespace {

TEST(UdpSocketText, OneWording) {
  EXPECT_EQ(describe_udp_socket({0, 0, 8388608}),
            "receive buffer 8.0 MiB, 0 kernel drops, 0 grows");
  EXPECT_EQ(describe_udp_socket({1, 1, 212992}), "receive buffer 208.0 KiB, 1 kernel drop, 1 grow");
  EXPECT_EQ(describe_udp_socket({1234, 2, 33554432}),
            "receive buffer 32.0 MiB, 1234 kernel drops, 2 grows");
}

// Answers `status` with one connected client and `stats` with a TCP and a UDP profile;
// `udp` decides whether the client's session (and the second profile) carry UDP figures.
class FakeService final : public control::ControlService {
 public:
  bool udp = true;
  Result<control::Response, control::ControlError> handle(const control::Request& request,
                                                          const control::Caller&) override {
    const std::optional<control::UdpSocketFigures> figures =
        udp ? std::optional(control::UdpSocketFigures{3, 1, 16777216}) : std::nullopt;
    if (std::holds_alternative<control::GetClientStatus>(request)) {
      control::ClientStatusReport r;
      r.state = "connected";
      r.proto = udp ? "udp" : "tcp";
      r.tunnel = control::ClientTunnelStatus{};
      r.tunnel->tunnel_address = "10.9.0.2/24";
      r.tunnel->udp = figures;
      return control::Response{std::move(r)};
    }
    control::StatsSnapshot s;
    s.profiles.resize(2);
    s.profiles[0].profile = "main";
    s.profiles[1].profile = "fast";
    s.profiles[1].udp_socket = figures;
    return control::Response{std::move(s)};
  }
};

class UdpSocketCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    socket_ = tmp_.file("fake.sock");
    auto st = server_.start(socket_, service_, control::host_access_policy(std::nullopt));
    ASSERT_TRUE(st.ok()) << st.error();
  }
  std::string run(const std::vector<std::string>& args) {
    std::ostringstream out, err;
    std::istringstream in;
    Context ctx{out, err, in, crypto::system_rng()};
    std::vector<std::string> all = args;
    all.insert(all.end(), {"--socket", socket_});
    EXPECT_EQ(run_cli(all, ctx), 0) << err.str();
    return out.str();
  }

  test::TempDir tmp_;
  std::string socket_;
  FakeService service_;
  control::ControlServer server_;  // last: stops serving before the service goes
};

TEST_F(UdpSocketCommandTest, StatusShowsTheLineForUdpSessionsOnly) {
  std::string out = run({"status"});
  EXPECT_NE(out.find("\n  udp:      receive buffer 16.0 MiB, 3 kernel drops, 1 grow\n"),
            std::string::npos)
      << out;
  const auto j = nlohmann::json::parse(run({"status", "--json"}));
  EXPECT_EQ(j[0]["udp_recv_buffer_bytes"], 16777216);
  EXPECT_EQ(j[0]["udp_kernel_drops"], 3);
  EXPECT_EQ(j[0]["udp_buffer_grows"], 1);

  service_.udp = false;
  out = run({"status"});
  EXPECT_EQ(out.find("udp:"), std::string::npos) << out;
  EXPECT_FALSE(nlohmann::json::parse(run({"status", "--json"}))[0].contains("udp_kernel_drops"));
}

TEST_F(UdpSocketCommandTest, StatsShowsTheUdpProfilesSockets) {
  const std::string out = run({"stats"});
  EXPECT_NE(out.find("fast udp sockets: receive buffer 16.0 MiB, 3 kernel drops, 1 grow\n"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("main udp sockets"), std::string::npos) << out;
  const auto j = nlohmann::json::parse(run({"stats", "--json"}));
  EXPECT_FALSE(j[0].contains("udp_recv_buffer_bytes"));
  EXPECT_EQ(j[1]["udp_recv_buffer_bytes"], 16777216);
  EXPECT_EQ(j[1]["udp_kernel_drops"], 3);
  EXPECT_EQ(j[1]["udp_buffer_grows"], 1);
}

}  // namespace
}  // namespace qeli::cli
