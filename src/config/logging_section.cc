#include "config/logging_section.h"

#include <sys/stat.h>

#include <filesystem>

#include "config/config_path.h"

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
  if (!l.file.empty()) {
    const std::filesystem::path p(beside_config(r.file(), l.file));
    l.file = p.lexically_normal().string();
    // Start-up opens (and creates) the file; what can be checked without creating it is
    // checked here, so check-config refuses what start-up would.
    struct stat st {};
    const std::string dir = p.parent_path().string();
    if (::stat(l.file.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
      r.error("file", "`" + l.file + "` is a directory (give the log file's path)");
    } else if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      r.error("file", "the directory of `" + l.file + "` does not exist");
    }
  }
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

void accept_logging_section(SectionReader& r) {
  for (const char* key : {"level", "file", "time_format", "format"}) (void)r.get_string(key, "");
}

}  // namespace qeli::config
