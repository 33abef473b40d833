// Numbers for people (status lines, the panel's pages): sizes in binary units,
// durations in d/h/m/s, points in time. One home, so `qeli status` and the panel say the same
// thing.
#pragma once

#include <cstdint>
#include <string>

namespace qeli {

/// "312 B", "1.5 MiB", "2.0 GiB" (1024-based, one decimal above bytes).
std::string human_bytes(double bytes);
/// "2d 3h 4m 5s", "4m 0s", "7s" (negative counts as 0).
std::string human_duration(std::int64_t secs);

/// "2026-12-06 21:16:10": `unix_secs` in UTC (`utc`) or in the local time zone.
std::string human_time(std::int64_t unix_secs, bool utc);

}  // namespace qeli
