// A spdlog sink that writes journald's native protocol (sd_journal_sendv(3)): one entry
// per line with MESSAGE, PRIORITY (syslog: error 3, warn 4, info 6, debug/trace 7),
// SYSLOG_IDENTIFIER, TID and the thread's LogFields. If journald cannot be reached the
// line goes to stderr with an sd-daemon(3) "<N>" priority prefix, which journald's stream
// reader understands, so nothing is lost.
#pragma once

#include <spdlog/sinks/base_sink.h>

#include <mutex>
#include <string>

namespace qeli::sys {

class JournalSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  explicit JournalSink(std::string identifier) : identifier_("SYSLOG_IDENTIFIER=" + identifier) {}

  /// The syslog priority journald records for a spdlog level.
  static int priority(spdlog::level::level_enum level);

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override;
  void flush_() override {}

 private:
  std::string identifier_;
};

}  // namespace qeli::sys
