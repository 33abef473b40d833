#include "config/logging_section.h"

namespace qeli::config {

LoggingConfig read_logging_section(SectionReader& r) {
  LoggingConfig l;
  l.level = r.get_enum("level", LogLevel::kInfo,
                       {{"error", LogLevel::kError},
                        {"warn", LogLevel::kWarn},
                        {"info", LogLevel::kInfo},
                        {"debug", LogLevel::kDebug},
                        {"trace", LogLevel::kTrace}});
  l.file = r.get_string("file", "");
  l.time_format = r.get_enum("time_format", TimeFormat::kDatetime,
                             {{"datetime", TimeFormat::kDatetime},
                              {"rfc3339", TimeFormat::kRfc3339},
                              {"time", TimeFormat::kTime},
                              {"epoch", TimeFormat::kEpoch},
                              {"none", TimeFormat::kNone}});
  if (r.has("format")) {
    l.format = r.get_string("format", "");
    r.warning("format", "accepted but has no effect");
  }
  return l;
}

}  // namespace qeli::config
