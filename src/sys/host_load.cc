#include "sys/host_load.h"

#include <unistd.h>

#include <charconv>
#include <fstream>
#include <iterator>
#include <vector>

namespace qeli::sys {
namespace {

// The whitespace-separated fields of one line.
std::vector<std::string_view> fields_of(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    const std::size_t b = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > b) out.push_back(line.substr(b, i - b));
  }
  return out;
}

std::optional<std::uint64_t> u64(std::string_view s) {
  std::uint64_t v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<double> number(std::string_view s) {
  double v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::string read_proc(const char* path) {
  std::ifstream f(path);
  std::string text;
  // /proc files report size 0: read until EOF, bounded.
  char buf[4096];
  while (f && text.size() < (1U << 20)) {
    f.read(buf, sizeof buf);
    text.append(buf, static_cast<std::size_t>(f.gcount()));
  }
  return text;
}

}  // namespace

std::optional<CpuTimes> parse_proc_stat(std::string_view text) {
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    const auto f = fields_of(line);
    if (f.empty() || f[0] != "cpu") continue;
    // cpu user nice system idle iowait irq softirq steal [guest guest_nice]
    if (f.size() < 5) return std::nullopt;
    std::uint64_t v[8] = {};
    for (std::size_t i = 0; i < 8 && i + 1 < f.size(); ++i) {
      const auto x = u64(f[i + 1]);
      if (!x) return std::nullopt;
      v[i] = *x;
    }
    CpuTimes t;
    t.busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
    t.total = t.busy + v[3] + v[4];
    return t;
  }
  return std::nullopt;
}

std::optional<LoadAverage> parse_loadavg(std::string_view text) {
  const auto f = fields_of(text.substr(0, text.find('\n')));
  if (f.size() < 3) return std::nullopt;
  const auto a = number(f[0]), b = number(f[1]), c = number(f[2]);
  if (!a || !b || !c) return std::nullopt;
  return LoadAverage{*a, *b, *c};
}

std::optional<MemoryInfo> parse_meminfo(std::string_view text) {
  std::optional<std::uint64_t> total, available;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    const auto f = fields_of(text.substr(0, nl));
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    if (f.size() < 2 || (f[0] != "MemTotal:" && f[0] != "MemAvailable:")) continue;
    const auto kb = u64(f[1]);
    if (!kb || *kb > (UINT64_MAX >> 10)) return std::nullopt;
    (f[0] == "MemTotal:" ? total : available) = *kb * 1024;
  }
  if (!total || !available) return std::nullopt;
  return MemoryInfo{*total, *available};
}

HostSampler::HostSampler(std::function<std::string(const char*)> read)
    : read_(read ? std::move(read) : std::function<std::string(const char*)>(read_proc)) {
  // The first sample is the baseline: the dashboard's first view then shows the CPU share
  // since the panel started, not since boot.
  previous_ = parse_proc_stat(read_("/proc/stat"));
}

HostLoad HostSampler::sample() {
  HostLoad out;
  const auto now = parse_proc_stat(read_("/proc/stat"));
  {
    std::lock_guard lock(mu_);
    if (now && previous_ && now->total > previous_->total && now->busy >= previous_->busy) {
      const double busy = static_cast<double>(now->busy - previous_->busy);
      const double total = static_cast<double>(now->total - previous_->total);
      out.cpu_percent = busy > total ? 100.0 : 100.0 * busy / total;
    }
    if (now) previous_ = now;
  }
  out.load = parse_loadavg(read_("/proc/loadavg"));
  out.memory = parse_meminfo(read_("/proc/meminfo"));
  const long n = ::sysconf(_SC_NPROCESSORS_ONLN);
  out.cpus = n > 0 ? static_cast<unsigned>(n) : 0U;
  return out;
}

}  // namespace qeli::sys
