#include "sys/log_memory.h"

#include <chrono>
#include <memory>

namespace qeli::sys {

void LogMemory::sink_it_(const spdlog::details::log_msg& msg) {
  Entry e;
  e.level = msg.level;
  e.line.seq = next_seq_++;
  e.line.unix_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(msg.time.time_since_epoch()).count();
  const auto name = spdlog::level::to_string_view(msg.level);
  e.line.level.assign(name.data(), name.size());
  e.line.text.assign(msg.payload.data(), std::min(msg.payload.size(), kLogMemoryLineBytes));
  if (lines_.size() >= capacity_) lines_.pop_front();
  lines_.push_back(std::move(e));
}

std::vector<LogLine> LogMemory::since(std::uint64_t after_seq, std::size_t limit,
                                      spdlog::level::level_enum min_level,
                                      std::uint64_t* last_seq) {
  std::lock_guard lock(mutex_);
  if (last_seq != nullptr) *last_seq = next_seq_ - 1;
  std::vector<LogLine> out;
  // Newest first while collecting, so the limit keeps the newest.
  for (auto it = lines_.rbegin(); it != lines_.rend() && out.size() < limit; ++it) {
    if (it->line.seq <= after_seq) break;
    if (it->level >= min_level) out.push_back(it->line);
  }
  return {out.rbegin(), out.rend()};
}

std::uint64_t LogMemory::last_seq() {
  std::lock_guard lock(mutex_);
  return next_seq_ - 1;
}

const std::shared_ptr<LogMemory>& log_memory_sink() {
  // Shared with the logger's dist_sink (a static's destruction order must not free it
  // under a thread that still logs).
  static const std::shared_ptr<LogMemory> memory = std::make_shared<LogMemory>();
  return memory;
}

LogMemory& log_memory() { return *log_memory_sink(); }

bool parse_spdlog_level(std::string_view name, spdlog::level::level_enum& out) {
  if (name == "warn") name = "warning";
  for (int l = spdlog::level::trace; l <= spdlog::level::err; ++l) {
    const auto lv = static_cast<spdlog::level::level_enum>(l);
    if (spdlog::level::to_string_view(lv) == name) {
      out = lv;
      return true;
    }
  }
  return false;
}

}  // namespace qeli::sys
