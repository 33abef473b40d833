#include "sys/log_output.h"

#include <sys/stat.h>
#include <unistd.h>

#include <spdlog/sinks/dist_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <memory>
#include <mutex>

#include "sys/journal_sink.h"
#include "sys/log_memory.h"
#include "sys/reopen_file_sink.h"

namespace qeli::sys {
namespace {

// spdlog::info() reads the default logger through a raw pointer, so replacing that logger
// while other threads log would free it under them. One logger is installed once, with a
// dist_sink whose single child is swapped under the dist_sink's own lock.
struct State {
  std::mutex mu;
  LogDestination destination = LogDestination::kStderr;
  std::shared_ptr<ReopenFileSink> file;
  std::shared_ptr<spdlog::sinks::dist_sink_mt> switch_sink;
  std::shared_ptr<spdlog::logger> logger;
};

State& state() {
  static State s;
  return s;
}

spdlog::level::level_enum to_spdlog(LogLevel l) {
  switch (l) {
    case LogLevel::kError: return spdlog::level::err;
    case LogLevel::kWarn: return spdlog::level::warn;
    case LogLevel::kInfo: return spdlog::level::info;
    case LogLevel::kDebug: return spdlog::level::debug;
    case LogLevel::kTrace: return spdlog::level::trace;
  }
  return spdlog::level::info;
}

}  // namespace

bool parse_log_level(const std::string& name, LogLevel& out) {
  static const std::pair<const char*, LogLevel> kNames[] = {{"error", LogLevel::kError},
                                                            {"warn", LogLevel::kWarn},
                                                            {"info", LogLevel::kInfo},
                                                            {"debug", LogLevel::kDebug},
                                                            {"trace", LogLevel::kTrace}};
  for (const auto& [n, l] : kNames) {
    if (name == n) {
      out = l;
      return true;
    }
  }
  return false;
}

bool stderr_is_journal() {
  const char* js = std::getenv("JOURNAL_STREAM");
  if (js == nullptr) return false;
  unsigned long long dev = 0, ino = 0;
  if (std::sscanf(js, "%llu:%llu", &dev, &ino) != 2) return false;
  struct stat st {};
  if (::fstat(STDERR_FILENO, &st) != 0) return false;
  return st.st_dev == dev && st.st_ino == ino;
}

std::string log_pattern(TimeFormat format) {
  // %^..%$ colours the level on a terminal (ignored by the file sink).
  switch (format) {
    case TimeFormat::kDatetime: return "[%Y-%m-%d %H:%M:%S.%e] [%^%l%$] %v";
    case TimeFormat::kRfc3339: return "[%Y-%m-%dT%H:%M:%S.%e%z] [%^%l%$] %v";
    case TimeFormat::kTime: return "[%H:%M:%S.%e] [%^%l%$] %v";
    case TimeFormat::kEpoch: return "[%E.%e] [%^%l%$] %v";
    case TimeFormat::kNone: return "[%^%l%$] %v";
  }
  return "[%^%l%$] %v";
}

Status<std::string> configure_logging(const LogOptions& o) {
  LogLevel level = o.level;
  if (const char* env = std::getenv("QELI_LOG_LEVEL"); env != nullptr) {
    (void)parse_log_level(env, level);
  }
  spdlog::sink_ptr sink;
  std::shared_ptr<ReopenFileSink> file;
  LogDestination dest = LogDestination::kStderr;
  if (!o.file.empty()) {
    auto f = ReopenFileSink::open(o.file);
    if (!f.ok()) return fail(f.error());
    file = *f;
    sink = file;
    dest = LogDestination::kFile;
  } else if (stderr_is_journal()) {
    sink = std::make_shared<JournalSink>("qeli");
    dest = LogDestination::kJournal;
  } else {
    sink = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
  }
  // The journal keeps its own time and level: the message alone.
  sink->set_pattern(dest == LogDestination::kJournal ? "%v" : log_pattern(o.time_format));
  std::lock_guard<std::mutex> lock(state().mu);
  State& s = state();
  if (!s.logger) {
    s.switch_sink = std::make_shared<spdlog::sinks::dist_sink_mt>();
    s.logger = std::make_shared<spdlog::logger>("", s.switch_sink);
    // Errors reach the file before a crash could lose them.
    s.logger->flush_on(spdlog::level::err);
    spdlog::set_default_logger(s.logger);
  }
  // Every line also to the in-memory ring the panel's Logs page reads (sys/log_memory.h).
  s.switch_sink->set_sinks({sink, log_memory_sink()});
  s.logger->set_level(to_spdlog(level));
  s.destination = dest;
  s.file = file;
  return {};
}

Status<std::string> reopen_log_file() {
  std::shared_ptr<ReopenFileSink> file;
  {
    std::lock_guard<std::mutex> lock(state().mu);
    file = state().file;
  }
  if (!file) return {};
  return file->reopen();
}

LogDestination log_destination() {
  std::lock_guard<std::mutex> lock(state().mu);
  return state().destination;
}

}  // namespace qeli::sys
