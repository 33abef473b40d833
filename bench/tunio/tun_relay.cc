// tun_relay: one TUN in each of two named network namespaces, relayed through the TUN
// engine (LinuxTun read_batch -> write_batch), for relay_lab.sh.
//
//   tun_relay --ns-a A --ns-b B --mode pass|split|regro [--mtu 1420]
//             [--addr-a 10.77.0.1/24] [--addr-b 10.77.0.2/24] [--seconds N]
//
// Prints "ready" once both TUNs are up, then relays until SIGINT/SIGTERM or N seconds,
// then prints per-direction counters. Root only (setns, TUN, netlink).
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <thread>

#include "fakes/netns.h"
#include "fakes/tun_relay.h"
#include "sys/link_netlink.h"

namespace {

std::atomic<bool> g_stop{false};
void on_signal(int) { g_stop = true; }

std::optional<qeli::tunio::LinuxTun> open_in(const qeli::test::Netns& ns, const std::string& name,
                                             qeli::test::RelayMode mode, std::size_t mtu,
                                             const std::string& cidr) {
  qeli::test::InNetns in(ns);
  if (!in.ok()) {
    std::fprintf(stderr, "setns failed\n");
    return std::nullopt;
  }
  auto cfg = qeli::test::make_relay_config(name, mode, mtu);
  cfg.log = [](std::string_view l) { std::fprintf(stderr, "%.*s\n", int(l.size()), l.data()); };
  auto tun = qeli::tunio::LinuxTun::open(cfg);
  if (!tun) {
    std::fprintf(stderr, "open: %s\n", tun.error().detail.c_str());
    return std::nullopt;
  }
  auto nl = qeli::sys::LinkNetlink::open();
  if (!nl) return std::nullopt;
  auto s1 = nl->set_mtu(tun->name(), static_cast<std::uint32_t>(mtu));
  auto s2 = nl->add_address(tun->name(), cidr);
  auto s3 = nl->set_link_up(tun->name());
  if (!s1 || !s2 || !s3) {
    std::fprintf(stderr, "netlink configuration of %s failed\n", tun->name().c_str());
    return std::nullopt;
  }
  return std::move(*tun);
}

void print(const char* dir, const qeli::test::RelayStats& st, const qeli::tunio::LinuxTun& from,
           const qeli::tunio::LinuxTun& to) {
  const auto& r = from.counters(0);
  const auto& w = to.counters(0);
  std::printf(
      "%s: batches=%llu packets=%llu dropped=%llu read_syscalls=%llu superpackets=%llu "
      "write_syscalls=%llu gro_merged=%llu invalid=%llu write_errors=%llu\n",
      dir, static_cast<unsigned long long>(st.batches), static_cast<unsigned long long>(st.packets),
      static_cast<unsigned long long>(st.dropped), static_cast<unsigned long long>(r.read_syscalls),
      static_cast<unsigned long long>(r.read_superpackets),
      static_cast<unsigned long long>(w.write_syscalls),
      static_cast<unsigned long long>(w.gro_merged),
      static_cast<unsigned long long>(r.drops.total()),
      static_cast<unsigned long long>(w.write_errors));
}

}  // namespace

int main(int argc, char** argv) {
  std::string ns_a, ns_b, mode_s = "pass", addr_a = "10.77.0.1/24", addr_b = "10.77.0.2/24";
  std::size_t mtu = 1420;
  int seconds = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--ns-a")
      ns_a = v;
    else if (k == "--ns-b")
      ns_b = v;
    else if (k == "--mode")
      mode_s = v;
    else if (k == "--mtu")
      mtu = std::strtoul(v.c_str(), nullptr, 10);
    else if (k == "--addr-a")
      addr_a = v;
    else if (k == "--addr-b")
      addr_b = v;
    else if (k == "--seconds")
      seconds = std::atoi(v.c_str());
    else {
      std::fprintf(stderr, "unknown option %s\n", k.c_str());
      return 2;
    }
  }
  qeli::test::RelayMode mode;
  if (ns_a.empty() || ns_b.empty() || !qeli::test::parse_relay_mode(mode_s, mode)) {
    std::fprintf(stderr, "usage: tun_relay --ns-a A --ns-b B --mode pass|split|regro\n");
    return 2;
  }
  qeli::test::Netns na(ns_a), nb(ns_b);
  if (!na.ok() || !nb.ok()) {
    std::fprintf(stderr, "%s%s\n", na.error().c_str(), nb.error().c_str());
    return 1;
  }
  auto ta = open_in(na, "qlab0", mode, mtu, addr_a);
  auto tb = open_in(nb, "qlab1", mode, mtu, addr_b);
  if (!ta || !tb) return 1;
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  qeli::test::RelayStats ab, ba;
  std::thread t1([&] { ab = qeli::test::relay_loop(*ta, *tb, g_stop); });
  std::thread t2([&] { ba = qeli::test::relay_loop(*tb, *ta, g_stop); });
  std::printf("ready\n");
  std::fflush(stdout);
  for (int waited = 0; !g_stop && (seconds == 0 || waited < seconds * 10); ++waited) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  g_stop = true;
  t1.join();
  t2.join();
  print("a->b", ab, *ta, *tb);
  print("b->a", ba, *tb, *ta);
  return 0;
}
