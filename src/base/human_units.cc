#include "base/human_units.h"

#include <cstdio>
#include <ctime>

namespace qeli {

std::string human_bytes(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int u = 0;
  while (b >= 1024 && u < 5) {
    b /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", b, units[u]);
  return buf;
}

std::string human_duration(std::int64_t s) {
  if (s < 0) s = 0;
  std::string out;
  if (s >= 86400) out += std::to_string(s / 86400) + "d ";
  if (s >= 3600) out += std::to_string(s / 3600 % 24) + "h ";
  if (s >= 60) out += std::to_string(s / 60 % 60) + "m ";
  return out + std::to_string(s % 60) + "s";
}

std::string human_time(std::int64_t unix_secs, bool utc) {
  const std::time_t t = unix_secs;
  std::tm tm{};
  if (utc) {
    gmtime_r(&t, &tm);
  } else {
    localtime_r(&t, &tm);
  }
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  return buf;
}

}  // namespace qeli
