#include "tunnel/pushed_params.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace qeli::tunnel {
namespace {

using nlohmann::json;

// Reads o[key] into `out` when it is there and of the right kind; keeps `out` otherwise.
void read(const json& o, const char* key, bool& out) {
  if (auto it = o.find(key); it != o.end() && it->is_boolean()) out = it->get<bool>();
}
void read(const json& o, const char* key, double& out) {
  if (auto it = o.find(key); it != o.end() && it->is_number()) out = it->get<double>();
}
template <typename T>
requires std::is_unsigned_v<T>
void read(const json& o, const char* key, T& out) {
  // A negative or fractional number is not a byte count: keep the fallback.
  if (auto it = o.find(key); it != o.end() && it->is_number_unsigned()) out = it->get<T>();
}
void read(const json& o, const char* key, std::chrono::milliseconds& out) {
  std::uint64_t ms = static_cast<std::uint64_t>(out.count());
  read(o, key, ms);
  out = std::chrono::milliseconds(std::min<std::uint64_t>(ms, 86'400'000));  // ≤ a day
}
const json* object(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_object() ? &*it : nullptr;
}

}  // namespace

std::size_t PaddingPolicy::pick(std::size_t data_len, std::size_t mtu, crypto::Rng& rng) const {
  if (data_len >= mtu) return 0;
  std::size_t pad = 0;
  bool roll_ok = true;
  if (enabled && max_bytes > 0 && probability < 1.0) {
    const auto roll = static_cast<double>(rng.uniform(0, 1'000'000)) / 1'000'000.0;
    roll_ok = roll < probability;
  }
  if (enabled && max_bytes > 0 && roll_ok) {
    pad = randomize
              ? static_cast<std::size_t>(rng.uniform(std::min(min_bytes, max_bytes), max_bytes))
              : max_bytes;
    pad = std::min(pad, mtu - data_len);
  }
  // Normalisation: up to the next round size that fits the MTU (none fits: as it is).
  for (std::size_t i = 0; i < round_count; ++i) {
    const std::size_t target = round_sizes[i];
    if (target > mtu) break;
    if (target >= data_len + pad) return target - data_len;
  }
  return pad;
}

std::chrono::milliseconds HeartbeatPolicy::liveness() const {
  if (!enabled) return std::chrono::milliseconds::zero();
  return std::max<std::chrono::milliseconds>(std::chrono::seconds(30), 3 * (interval + jitter));
}

std::string to_json(const PushedParams& p) {
  json j;
  j["padding"] = {{"enabled", p.padding.enabled},
                  {"min_bytes", p.padding.min_bytes},
                  {"max_bytes", p.padding.max_bytes},
                  {"randomize", p.padding.randomize},
                  {"probability", p.padding.probability}};
  j["heartbeat"] = {{"enabled", p.heartbeat.enabled},
                    {"interval_ms", p.heartbeat.interval.count()},
                    {"data_size_bytes", p.heartbeat.data_size_bytes},
                    {"jitter_ms", p.heartbeat.jitter.count()}};
  j["traffic_normalization"] = {{"enabled", p.normalization.enabled},
                                {"round_sizes", p.normalization.round_sizes}};
  const ShapingParams& s = p.shaping;
  j["traffic_shaping"] = {{"enabled", s.enabled},
                          {"idle_gap_mean_ms", s.idle_gap_mean.count()},
                          {"idle_gap_min_ms", s.idle_gap_min.count()},
                          {"idle_gap_max_ms", s.idle_gap_max.count()},
                          {"budget_bytes_per_sec", s.budget_bytes_per_sec},
                          {"min_size", s.min_size},
                          {"max_size", s.max_size},
                          {"stealth", s.stealth},
                          {"stealth_rate_mbps", s.stealth_rate_mbps}};
  return j.dump();
}

PushedParams parse_pushed_params(std::string_view text, const PushedParams& fallback) {
  PushedParams out = fallback;
  const json j = json::parse(text, nullptr, false);
  if (j.is_object()) {
    if (const json* p = object(j, "padding")) {
      read(*p, "enabled", out.padding.enabled);
      read(*p, "min_bytes", out.padding.min_bytes);
      read(*p, "max_bytes", out.padding.max_bytes);
      read(*p, "randomize", out.padding.randomize);
      read(*p, "probability", out.padding.probability);
    }
    if (const json* h = object(j, "heartbeat")) {
      read(*h, "enabled", out.heartbeat.enabled);
      read(*h, "interval_ms", out.heartbeat.interval);
      read(*h, "data_size_bytes", out.heartbeat.data_size_bytes);
      read(*h, "jitter_ms", out.heartbeat.jitter);
    }
    if (const json* n = object(j, "traffic_normalization")) {
      read(*n, "enabled", out.normalization.enabled);
      if (auto it = n->find("round_sizes"); it != n->end() && it->is_array()) {
        std::vector<std::uint32_t> sizes;
        for (const auto& v : *it) {
          if (v.is_number_unsigned() && sizes.size() < 64) sizes.push_back(v.get<std::uint32_t>());
        }
        out.normalization.round_sizes = std::move(sizes);
      }
    }
    if (const json* s = object(j, "traffic_shaping")) {
      ShapingParams& sh = out.shaping;
      read(*s, "enabled", sh.enabled);
      read(*s, "idle_gap_mean_ms", sh.idle_gap_mean);
      read(*s, "idle_gap_min_ms", sh.idle_gap_min);
      read(*s, "idle_gap_max_ms", sh.idle_gap_max);
      read(*s, "budget_bytes_per_sec", sh.budget_bytes_per_sec);
      read(*s, "min_size", sh.min_size);
      read(*s, "max_size", sh.max_size);
      read(*s, "stealth", sh.stealth);
      read(*s, "stealth_rate_mbps", sh.stealth_rate_mbps);
    }
  }
  // Never trust pushed values into nonsense (the fallback is checked by config already).
  PaddingPolicy& pad = out.padding;
  pad.max_bytes = std::min<std::size_t>(pad.max_bytes, 4096);
  pad.min_bytes = std::min(pad.min_bytes, pad.max_bytes);
  if (!(pad.probability >= 0.0)) pad.probability = 0.0;  // also NaN
  pad.probability = std::min(pad.probability, 1.0);
  HeartbeatPolicy& hb = out.heartbeat;
  hb.interval = std::max<std::chrono::milliseconds>(hb.interval, std::chrono::seconds(1));
  if (hb.jitter >= hb.interval) hb.jitter = std::chrono::milliseconds::zero();
  hb.data_size_bytes = std::min<std::uint32_t>(hb.data_size_bytes, 1024);
  return out;
}

}  // namespace qeli::tunnel
