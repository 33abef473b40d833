// A TUN-to-TUN relay through the engine's I/O path, for the privileged relay test and the
// bench/tunio lab: read_batch from one LinuxTun, write_batch to the other, in one thread
// per direction, until `stop` is set. Modes (LinuxTun configuration, see make_relay_config):
//   pass  - keep super-packets whole and write them back with their header
//   split - userspace GSO split, one write per MTU-sized packet (no GRO)
//   regro - split, then userspace GRO coalesce before the write
#pragma once

#include <poll.h>

#include <atomic>
#include <cstdint>
#include <string>

#include "tunio/linux_tun.h"

namespace qeli::test {

enum class RelayMode { pass, split, regro };

inline bool parse_relay_mode(const std::string& s, RelayMode& m) {
  if (s == "pass")
    m = RelayMode::pass;
  else if (s == "split")
    m = RelayMode::split;
  else if (s == "regro")
    m = RelayMode::regro;
  else
    return false;
  return true;
}

inline tunio::TunConfig make_relay_config(const std::string& name, RelayMode mode,
                                          std::size_t mtu) {
  tunio::TunConfig c;
  c.name = name;
  c.mtu = mtu;
  c.read_mode = mode == RelayMode::pass ? tunio::ReadMode::keep_whole : tunio::ReadMode::split;
  c.tcp_gro = mode != RelayMode::split;
  c.udp_gro = mode != RelayMode::split;
  c.log = [](std::string_view) {};
  return c;
}

struct RelayStats {
  std::uint64_t batches = 0;
  std::uint64_t packets = 0;  // logical packets written
  std::uint64_t dropped = 0;
};

/// Runs one direction until `stop`; batch slots are 65535 bytes so GRO can grow packets.
inline RelayStats relay_loop(tunio::LinuxTun& in, tunio::LinuxTun& out, std::atomic<bool>& stop,
                             std::size_t batch_size = 64) {
  tunio::PacketBatch batch(batch_size, 65535, 64);
  RelayStats st;
  pollfd pin{in.fd(0), POLLIN, 0};
  pollfd pout{out.fd(0), POLLOUT, 0};
  while (!stop.load(std::memory_order_relaxed)) {
    batch.clear();
    auto r = in.read_batch(0, batch);
    if (!r) {
      if (r.error() == tunio::TunError::would_block) ::poll(&pin, 1, 20);
      continue;
    }
    ++st.batches;
    for (;;) {
      auto w = out.write_batch(0, batch);
      if (!w) break;
      st.packets += w->logical_written;
      st.dropped += w->logical_dropped;
      if (w->complete() || stop.load(std::memory_order_relaxed)) break;
      ::poll(&pout, 1, 20);
    }
  }
  return st;
}

}  // namespace qeli::test
