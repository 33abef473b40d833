#include "engine/session_counters.h"

namespace qeli::engine {

std::string describe_drops(const SessionCounters& c) {
  const struct {
    const char* name;
    const std::atomic<std::uint64_t>& value;
  } drops[] = {
      {"not_ipv4", c.drop_not_ipv4},     {"ipv6", c.drop_ipv6},
      {"bad_source", c.drop_bad_source}, {"policy", c.drop_policy},
      {"queue_full", c.drop_queue_full}, {"replay", c.drop_replay},
      {"tun_write", c.drop_tun_write},   {"bad_gso", c.drop_bad_gso},
      {"too_big", c.drop_too_big},       {"frag_needed", c.frag_needed_sent},
      {"fragmented", c.frag_tx},
  };
  std::string out;
  for (const auto& d : drops) {
    const auto n = d.value.load(std::memory_order_relaxed);
    if (n == 0) continue;
    if (!out.empty()) out += ' ';
    out += d.name;
    out += '=';
    out += std::to_string(n);
  }
  return out.empty() ? "none" : out;
}

}  // namespace qeli::engine
