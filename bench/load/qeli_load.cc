// qeli_load: many real qeli clients in one process, for the server's many-clients numbers
// (docs/BENCHMARKS.md "Many clients"). Each client is a libqeli handle (the public header
// and the shared library only, as an app uses them): its own carrier, handshake (hybrid
// X25519 + ML-KEM-768, AUTH with the password inside the channel) and session, packets by
// tun_push / tun_pull. So the server sees exactly what N phones with the same link would
// send, from one namespace.
//
//   qeli_load --clients N [--rate R] [--connect-timeout S] [--hold S] [--ping] LINK-OR-FILE
//
// --rate R   clients started per second (0, the default: all at once — a handshake storm)
// --hold S   seconds to keep every session up after the last one connected (the server's
//            idle cost is sampled then, by bench/load/run.sh)
// --ping     each connected client sends one ICMP echo to the server's tunnel address and
//            waits for the reply (the data path of every session, not just its handshake)
//
// Prints one JSON object: clients, connected, failed (per error text), connect_all_ms,
// handshakes_per_s, connect latency p50/p90/max, ping replies. Exit 0 when every client
// connected (and, with --ping, answered). Threads: one per handle for qeli_client_run (it
// blocks), and main, which polls every handle's events and moves the pings.
#include <qeli_transport_core.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  int clients = 100;
  double rate = 0;
  int connect_timeout_s = 120;
  int hold_s = 0;
  bool ping = false;
  std::string profile;
};

struct Client {
  std::uint64_t handle = 0;
  std::thread runner;
  Clock::time_point started{};
  double connect_ms = -1;      // < 0: not connected
  double connected_at_ms = 0;  // since the run began
  std::uint64_t generation = 0;
  std::uint8_t src[4] = {}, dst[4] = {};
  bool ping_sent = false, ping_ok = false;
  std::string error;
};

[[noreturn]] void usage() {
  std::fprintf(stderr,
               "usage: qeli_load --clients N [--rate R] [--connect-timeout S] [--hold S] "
               "[--ping] LINK-OR-FILE\n");
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage();
      return argv[++i];
    };
    if (a == "--clients") {
      o.clients = std::atoi(value().c_str());
    } else if (a == "--rate") {
      o.rate = std::atof(value().c_str());
    } else if (a == "--connect-timeout") {
      o.connect_timeout_s = std::atoi(value().c_str());
    } else if (a == "--hold") {
      o.hold_s = std::atoi(value().c_str());
    } else if (a == "--ping") {
      o.ping = true;
    } else if (!a.empty() && a[0] != '-' && o.profile.empty()) {
      o.profile = a;
    } else {
      usage();
    }
  }
  if (o.profile.empty() || o.clients < 1 || o.clients > 5000 || o.rate < 0) usage();
  if (o.profile.rfind("qeli://", 0) != 0) {
    std::ifstream f(o.profile, std::ios::binary);
    if (!f) {
      std::fprintf(stderr, "cannot read %s\n", o.profile.c_str());
      std::exit(1);
    }
    std::stringstream ss;
    ss << f.rdbuf();
    o.profile = ss.str();
  }
  return o;
}

// "key":"a.b.c.d" out of the plan JSON.
bool json_ipv4(const std::string& json, const char* key, std::uint8_t out[4]) {
  const std::string pattern = std::string("\"") + key + "\":\"";
  const auto p = json.find(pattern);
  unsigned a, b, c, d;
  if (p == std::string::npos ||
      std::sscanf(json.c_str() + p + pattern.size(), "%u.%u.%u.%u", &a, &b, &c, &d) != 4) {
    return false;
  }
  out[0] = static_cast<std::uint8_t>(a), out[1] = static_cast<std::uint8_t>(b);
  out[2] = static_cast<std::uint8_t>(c), out[3] = static_cast<std::uint8_t>(d);
  return true;
}

std::uint16_t checksum(const std::uint8_t* p, std::size_t n) {
  std::uint32_t sum = 0;
  for (std::size_t i = 0; i + 1 < n; i += 2)
    sum += static_cast<std::uint32_t>(p[i] << 8 | p[i + 1]);
  if (n & 1) sum += static_cast<std::uint32_t>(p[n - 1] << 8);
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<std::uint16_t>(~sum);
}

// An 84-byte IPv4 ICMP echo request (identifier 0x5145, sequence = the client's index).
void echo_request(std::uint8_t pkt[84], const Client& c, std::uint16_t seq) {
  std::memset(pkt, 0, 84);
  pkt[0] = 0x45;
  pkt[3] = 84;
  pkt[8] = 64;
  pkt[9] = 1;
  std::memcpy(pkt + 12, c.src, 4);
  std::memcpy(pkt + 16, c.dst, 4);
  std::uint16_t s = checksum(pkt, 20);
  pkt[10] = static_cast<std::uint8_t>(s >> 8), pkt[11] = static_cast<std::uint8_t>(s);
  std::uint8_t* icmp = pkt + 20;
  icmp[0] = 8;
  icmp[4] = 0x51, icmp[5] = 0x45;
  icmp[6] = static_cast<std::uint8_t>(seq >> 8), icmp[7] = static_cast<std::uint8_t>(seq);
  s = checksum(icmp, 64);
  icmp[2] = static_cast<std::uint8_t>(s >> 8), icmp[3] = static_cast<std::uint8_t>(s);
}

// Drains one handle's events: the plan is acknowledged (nothing to install: packets go by
// push/pull), a protect request is granted (the sockets need no protection here), errors
// are kept for the report.
void poll_events(Client& c, std::string& payload, Clock::time_point t0) {
  for (int k = 0; k < 16; ++k) {
    qeli_client_event_t ev = QELI_CLIENT_EVENT_INIT;
    std::size_t n = 0;
    const std::int32_t rc = qeli_client_poll_event(
        c.handle, &ev, reinterpret_cast<std::uint8_t*>(payload.data()), payload.size(), &n);
    if (rc != QELI_CLIENT_OK) return;
    const std::string text(payload.data(), n);
    if (ev.kind == QELI_CLIENT_ERROR) {
      c.error = text.substr(0, 120);
    } else if (ev.kind == QELI_CLIENT_SOCKET_PROTECT) {
      qeli_client_socket_protect_result(c.handle, ev.sequence, 0, nullptr, 0);
    } else if (ev.kind == QELI_CLIENT_NETWORK_PLAN) {
      const bool ok =
          json_ipv4(text, "tunnel_address", c.src) && json_ipv4(text, "tunnel_gateway", c.dst);
      if (qeli_client_network_plan_result(c.handle, ev.plan_generation, ok ? 0 : -1, nullptr, 0) ==
              QELI_CLIENT_OK &&
          ok) {
        c.generation = ev.plan_generation;
        if (c.connect_ms < 0) {
          const auto now = Clock::now();
          c.connect_ms = std::chrono::duration<double, std::milli>(now - c.started).count();
          c.connected_at_ms = std::chrono::duration<double, std::milli>(now - t0).count();
        }
      }
    }
  }
}

// Pulls what arrived for `c`; true once its echo reply is among it.
bool pulled_reply(Client& c, std::uint16_t seq, std::vector<std::uint8_t>& buf) {
  std::uint32_t lens[64];
  std::size_t packets = 0, bytes = 0;
  if (qeli_client_tun_pull(c.handle, c.generation, buf.data(), buf.size(), lens, 64, &packets,
                           &bytes) != QELI_CLIENT_OK) {
    return false;
  }
  std::size_t off = 0;
  for (std::size_t k = 0; k < packets; off += lens[k++]) {
    const std::uint8_t* p = buf.data() + off;
    if (lens[k] >= 28 && p[9] == 1 && p[20] == 0 && p[26] == (seq >> 8) && p[27] == (seq & 0xff)) {
      return true;
    }
  }
  return false;
}

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return -1;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(q * static_cast<double>(v.size())))];
}

std::string json_escape(const std::string& s) {
  std::string o;
  for (char ch : s) {
    if (ch == '"' || ch == '\\') o += '\\';
    if (static_cast<unsigned char>(ch) >= 0x20) o += ch;
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  if (!QELI_CLIENT_ABI_IS_COMPATIBLE(qeli_client_abi_version()) ||
      (qeli_client_core_capabilities() & QELI_CORE_TUN_PACKET_IO) == 0) {
    std::fprintf(stderr, "libqeli: incompatible ABI %#x\n", qeli_client_abi_version());
    return 1;
  }
  // Every client holds a socket or two: lift the soft descriptor limit to the hard one.
  rlimit nofile{};
  if (::getrlimit(RLIMIT_NOFILE, &nofile) == 0) {
    nofile.rlim_cur = nofile.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &nofile);
  }

  std::vector<Client> clients(static_cast<std::size_t>(o.clients));
  std::string payload(65536, '\0');
  std::vector<std::uint8_t> buf(16384);
  const auto t0 = Clock::now();
  const auto give_up = t0 + std::chrono::seconds(o.connect_timeout_s);
  std::size_t started = 0, connected = 0;
  bool broken = false;  // the library refused a handle: report what ran, stop the rest
  while (!broken && Clock::now() < give_up && connected < clients.size()) {
    // Start the clients the rate allows by now.
    const double elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
    const std::size_t due =
        o.rate <= 0 ? clients.size()
                    : std::min(clients.size(), static_cast<std::size_t>(elapsed * o.rate) + 1);
    for (; started < due; ++started) {
      Client& c = clients[started];
      const std::int32_t rc = qeli_client_new(
          reinterpret_cast<const std::uint8_t*>(o.profile.data()), o.profile.size(),
          QELI_PLATFORM_ROUTES | QELI_PLATFORM_DNS | QELI_PLATFORM_TUN_PACKET_BATCH, 0, &c.handle);
      if (rc != QELI_CLIENT_OK) {
        std::fprintf(stderr, "qeli_client_new: %d\n", rc);
        c.handle = 0;
        broken = true;
        break;
      }
      const std::string device = "qeli-load-" + std::to_string(started);
      qeli_client_set_device_id(c.handle, reinterpret_cast<const std::uint8_t*>(device.data()),
                                device.size());
      c.started = Clock::now();
      if (qeli_client_start(c.handle) != QELI_CLIENT_OK) {
        std::fprintf(stderr, "qeli_client_start failed\n");
        c.error = "qeli_client_start failed";
        ++started;
        broken = true;
        break;
      }
      c.runner = std::thread([h = c.handle] { qeli_client_run(h, nullptr, 0); });
    }
    connected = 0;
    for (std::size_t i = 0; i < started; ++i) {
      poll_events(clients[i], payload, t0);
      if (clients[i].generation != 0) ++connected;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  const double connect_all_ms =
      std::chrono::duration<double, std::milli>(Clock::now() - t0).count();

  // One echo per connected client, all in flight together, then the replies.
  std::size_t replies = 0;
  if (o.ping) {
    for (std::size_t i = 0; i < clients.size(); ++i) {
      Client& c = clients[i];
      if (c.generation == 0) continue;
      std::uint8_t pkt[84];
      echo_request(pkt, c, static_cast<std::uint16_t>(i + 1));
      std::uint32_t len = 84;
      std::size_t accepted = 0;
      c.ping_sent = qeli_client_tun_push(c.handle, c.generation, pkt, 84, &len, 1, &accepted) ==
                        QELI_CLIENT_OK &&
                    accepted == 1;
    }
    const auto ping_deadline = Clock::now() + std::chrono::seconds(10);
    while (Clock::now() < ping_deadline) {
      std::size_t waiting = 0;
      for (std::size_t i = 0; i < clients.size(); ++i) {
        Client& c = clients[i];
        if (!c.ping_sent || c.ping_ok) continue;
        poll_events(c, payload, t0);
        c.ping_ok = pulled_reply(c, static_cast<std::uint16_t>(i + 1), buf);
        replies += c.ping_ok ? 1 : 0;
        waiting += c.ping_ok ? 0 : 1;
      }
      if (waiting == 0) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }

  // The hold: every session stays up while the server's idle cost is sampled.
  const auto hold_end = Clock::now() + std::chrono::seconds(o.hold_s);
  // bench/load/run.sh ends the storm's window at this line (also with --hold 0).
  std::fprintf(stderr, "qeli_load: holding %d sessions for %d s\n", static_cast<int>(connected),
               o.hold_s);
  while (Clock::now() < hold_end) {
    for (Client& c : clients) {
      if (c.handle != 0) poll_events(c, payload, t0);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  std::size_t still_up = 0;
  for (Client& c : clients) {
    std::uint32_t state = 0;
    if (c.handle != 0 && qeli_client_state(c.handle, &state) == QELI_CLIENT_OK &&
        state == QELI_CLIENT_RUNNING) {
      ++still_up;
    }
  }

  std::vector<double> latencies;
  std::map<std::string, int> failed;
  double last = 0;  // when the last one connected, since the run began
  for (Client& c : clients) {
    if (c.connect_ms >= 0) {
      latencies.push_back(c.connect_ms);
      last = std::max(last, c.connected_at_ms);
    } else {
      ++failed[c.error.empty() ? "not connected in time" : c.error];
    }
  }
  for (Client& c : clients) {
    if (c.handle != 0) qeli_client_stop(c.handle);
  }
  for (Client& c : clients) {
    if (c.runner.joinable()) c.runner.join();
    if (c.handle != 0) qeli_client_free(c.handle);
  }

  std::string failures;
  for (const auto& [why, n] : failed) {
    failures += (failures.empty() ? "" : ",") + std::string("\"") + json_escape(why) +
                "\":" + std::to_string(n);
  }
  std::printf(
      "{\"clients\":%d,\"connected\":%zu,\"still_up_after_hold\":%zu,\"failed\":{%s},"
      "\"connect_all_ms\":%.0f,\"handshakes_per_s\":%.1f,\"connect_ms\":{\"p50\":%.0f,"
      "\"p90\":%.0f,\"max\":%.0f},\"ping\":%s,\"ping_replies\":%zu,\"rate\":%.1f}\n",
      o.clients, latencies.size(), still_up, failures.c_str(), connect_all_ms,
      last > 0 ? 1000.0 * static_cast<double>(latencies.size()) / last : 0.0,
      percentile(latencies, 0.5), percentile(latencies, 0.9),
      latencies.empty() ? -1.0 : *std::max_element(latencies.begin(), latencies.end()),
      o.ping ? "true" : "false", replies, o.rate);
  const bool ok = latencies.size() == clients.size() && (!o.ping || replies == clients.size());
  return ok ? 0 : 1;
}
