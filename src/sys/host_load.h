// What the host is doing, for the panel's dashboard and GET /api/v1/host: CPU busy share
// since the previous sample, the load averages and memory, read from /proc (proc(5):
// /proc/stat's aggregate "cpu" line, /proc/loadavg, /proc/meminfo's MemTotal and
// MemAvailable). The parsers take the files' text (tested with fixed text); HostSampler
// reads them and keeps the previous CPU times. Needs no privilege.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace qeli::sys {

/// Aggregate CPU time in clock ticks: busy = user+nice+system+irq+softirq+steal,
/// total = busy + idle + iowait (guest time is already inside user/nice).
struct CpuTimes {
  std::uint64_t busy = 0, total = 0;
};
std::optional<CpuTimes> parse_proc_stat(std::string_view text);

struct LoadAverage {
  double one = 0, five = 0, fifteen = 0;
};
std::optional<LoadAverage> parse_loadavg(std::string_view text);

struct MemoryInfo {
  std::uint64_t total_bytes = 0, available_bytes = 0;
};
/// MemTotal and MemAvailable (kB in the file); nullopt without either.
std::optional<MemoryInfo> parse_meminfo(std::string_view text);

struct HostLoad {
  /// 0..100 over the time since the previous sample; nullopt on the first sample or when
  /// no tick passed.
  std::optional<double> cpu_percent;
  std::optional<LoadAverage> load;
  std::optional<MemoryInfo> memory;
  unsigned cpus = 0;  ///< online CPUs
};

class HostSampler {
 public:
  /// `read(path)` returns a file's text ("" when it cannot be read); default: /proc.
  explicit HostSampler(std::function<std::string(const char*)> read = {});
  /// Thread-safe.
  HostLoad sample();

 private:
  std::function<std::string(const char*)> read_;
  std::mutex mu_;
  std::optional<CpuTimes> previous_;
};

}  // namespace qeli::sys
