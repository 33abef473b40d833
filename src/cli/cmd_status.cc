// qeli status [--dev DEV | --socket PATH] [--json] — the running clients on this host:
// state, server, tunnel addresses, traffic and rates, since when, and for a UDP session its
// socket's receive buffer, kernel drops and grows (client/status_service.h).
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <memory>
#include <ostream>

#include "base/human_units.h"
#include "cli/commands.h"
#include "cli/udp_socket_text.h"
#include "client/status_service.h"
#include "control/api_json.h"
#include "control/control_socket.h"

namespace qeli::cli {
namespace {

struct Options {
  std::string dev;
  std::string socket;
  bool json = false;
};

std::string local_time(std::int64_t unix) { return human_time(unix, false); }

void print_human(const std::string& name, const nlohmann::json& j, std::ostream& out) {
  const std::int64_t now = j.value("now", std::int64_t{0});
  out << name << ": " << j.value("state", "?");
  if (j.contains("detail")) out << " (" << j["detail"].get<std::string>() << ")";
  out << "\n  server:   " << j.value("server", "?");
  if (j.contains("server_address")) out << " (" << j["server_address"].get<std::string>() << ")";
  out << ", " << j.value("proto", "?") << " " << j.value("mode", "?") << ", user "
      << j.value("user", "?") << "\n";
  if (j.contains("tunnel_address")) {
    const std::string v6 = j.value("tunnel_address6", std::string());
    out << "  tunnel:   " << j["tunnel_address"].get<std::string>()
        << (v6.empty() ? std::string() : " and " + v6) << " on " << j.value("dev", "?")
        << ", server " << j.value("server_tunnel_address", "?") << ", mtu " << j.value("mtu", 0)
        << (j.value("full_tunnel", false) ? ", full tunnel" : ", split tunnel") << "\n";
    const std::int64_t since = j.value("connected_since", now);
    out << "  since:    " << local_time(since) << " (" << human_duration(now - since) << ")\n";
    out << "  traffic:  rx " << human_bytes(j.value("rx_bytes", 0.0)) << " ("
        << human_bytes(j.value("rx_bytes_per_sec", 0.0)) << "/s), tx "
        << human_bytes(j.value("tx_bytes", 0.0)) << " ("
        << human_bytes(j.value("tx_bytes_per_sec", 0.0)) << "/s)\n";
    // A UDP session only (a TCP one has no udp_* members).
    if (j.contains("udp_recv_buffer_bytes")) {
      const control::UdpSocketFigures f{j.value("udp_kernel_drops", std::uint64_t{0}),
                                        j.value("udp_buffer_grows", std::uint64_t{0}),
                                        j.value("udp_recv_buffer_bytes", std::uint64_t{0})};
      out << "  udp:      " << describe_udp_socket(f) << "\n";
    }
  } else {
    const std::int64_t since = j.value("state_since", now);
    out << "  since:    " << local_time(since) << " (" << human_duration(now - since) << ")\n";
  }
  out << "  sessions: " << j.value("sessions", 0);
  if (j.contains("last_session_end"))
    out << " (last ended: " << j["last_session_end"].get<std::string>() << ")";
  out << "\n";
}

int run(const Options& o, Context& ctx) {
  std::vector<std::string> sockets;
  if (!o.socket.empty()) {
    sockets.push_back(o.socket);
  } else if (!o.dev.empty()) {
    sockets.push_back(client::current_status_socket_path(o.dev));
  } else {
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(client::kStatusDir, ec)) {
      const std::string n = e.path().filename().string();
      if (n.rfind("client-", 0) == 0 && n.size() > 12 && n.substr(n.size() - 5) == ".sock") {
        sockets.push_back(e.path().string());
      }
    }
    std::sort(sockets.begin(), sockets.end());
  }
  if (sockets.empty()) {
    ctx.err << "qeli status: no qeli client is running (no client-*.sock in " << client::kStatusDir
            << ")\n";
    return kExitFailure;
  }
  nlohmann::json all = nlohmann::json::array();
  int answered = 0;
  for (const auto& path : sockets) {
    std::string name = std::filesystem::path(path).stem().string();
    control::SocketClient client(path, 3000);
    auto r = control::call(client, control::GetClientStatus{});
    if (!r.ok()) {
      if (o.json) {
        all.push_back({{"socket", path}, {"state", "not running"}, {"error", r.error().message}});
      } else {
        ctx.out << name << ": not running (" << r.error().message << ")\n";
      }
      continue;
    }
    ++answered;
    nlohmann::json j = *r;
    j["socket"] = path;
    if (o.json) {
      all.push_back(std::move(j));
    } else {
      print_human(name, j, ctx.out);
    }
  }
  if (o.json) ctx.out << all.dump() << "\n";
  return answered > 0 ? kExitOk : kExitFailure;
}

}  // namespace

void register_status(CLI::App& app, Context& ctx) {
  auto opts = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("status", "Show the qeli clients running on this host");
  cmd->add_option("--dev", opts->dev, "Only the client with this dev (in this network namespace)");
  cmd->add_option("--socket", opts->socket, "Ask this status socket");
  cmd->add_flag("--json", opts->json, "A JSON array, one object per client");
  cmd->callback([opts, &ctx] { ctx.exit_code = run(*opts, ctx); });
}

}  // namespace qeli::cli
