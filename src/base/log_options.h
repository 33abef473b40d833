// What the `[logging]` section asks for (docs/CONFIG.md §4), in the vocabulary shared by
// the config parser (config/logging_section.h) and the log outputs (sys/log_output.h).
#pragma once

#include <string>

namespace qeli {

enum class LogLevel { kError, kWarn, kInfo, kDebug, kTrace };

/// How a line's time is written to a terminal or a file. Lines sent to the systemd
/// journal carry no time of their own: journald stamps every entry.
enum class TimeFormat {
  kDatetime,  ///< 2026-12-01 21:50:07.123 (local time)
  kRfc3339,   ///< 2026-12-01T21:50:07.123+01:00
  kTime,      ///< 21:50:07.123
  kEpoch,     ///< 1796158207.123 (Unix seconds)
  kNone,      ///< no time
};

struct LogOptions {
  LogLevel level = LogLevel::kInfo;
  std::string file;  ///< absolute path; empty = standard error (or the journal under systemd)
  TimeFormat time_format = TimeFormat::kDatetime;
};

}  // namespace qeli
