// The newest log lines of this process, kept in memory for the web panel's Logs page
// (issue 17: "logs"): wherever configure_logging() sends the lines (file, journal,
// stderr), a copy of each goes to this ring too, so the panel — which cannot read the
// journal or the server's log file — sees them through the control API (`logs`).
//
// Bounded: kLogMemoryLines lines of at most kLogMemoryLineBytes each (the oldest go
// first). A line is numbered (seq, from 1 per process start) so a reader can ask for
// what came after the last one it saw. Thread-safe (the sink's own lock).
#pragma once

#include <spdlog/sinks/base_sink.h>

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace qeli::sys {

inline constexpr std::size_t kLogMemoryLines = 2000;
inline constexpr std::size_t kLogMemoryLineBytes = 2048;

struct LogLine {
  std::uint64_t seq = 0;
  std::int64_t unix_ms = 0;
  std::string level;  ///< "error", "warning", "info", "debug", "trace"
  std::string text;   ///< the message (no time or level prefix), cut at kLogMemoryLineBytes
};

class LogMemory final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  explicit LogMemory(std::size_t capacity = kLogMemoryLines) : capacity_(capacity) {}

  /// The lines after `after_seq` at `min_level` or above, oldest first: the newest
  /// `limit` of them; `last_seq` (if given): the newest line's seq at the same moment.
  std::vector<LogLine> since(std::uint64_t after_seq, std::size_t limit,
                             spdlog::level::level_enum min_level,
                             std::uint64_t* last_seq = nullptr);
  /// The newest line's seq (0: none yet).
  std::uint64_t last_seq();

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override;
  void flush_() override {}

 private:
  struct Entry {
    LogLine line;
    spdlog::level::level_enum level;
  };
  std::size_t capacity_;
  std::deque<Entry> lines_;
  std::uint64_t next_seq_ = 1;
};

/// The process's ring (configure_logging() feeds it).
LogMemory& log_memory();
const std::shared_ptr<LogMemory>& log_memory_sink();

/// A level name as LogLine::level spells it ("warning", …) or as configs do ("warn");
/// false for anything else.
bool parse_spdlog_level(std::string_view name, spdlog::level::level_enum& out);

}  // namespace qeli::sys
