#include "sys/journal_sink.h"

#include <sys/uio.h>
#include <unistd.h>

#include <systemd/sd-journal.h>

#include <string>
#include <vector>

#include "sys/log_fields.h"

namespace qeli::sys {

int JournalSink::priority(spdlog::level::level_enum level) {
  switch (level) {
    case spdlog::level::critical: return 2;
    case spdlog::level::err: return 3;
    case spdlog::level::warn: return 4;
    case spdlog::level::info: return 6;
    default: return 7;
  }
}

void JournalSink::sink_it_(const spdlog::details::log_msg& msg) {
  const int prio = priority(msg.level);
  const std::string message = "MESSAGE=" + std::string(msg.payload.data(), msg.payload.size());
  const std::string prio_field = "PRIORITY=" + std::to_string(prio);
  const std::string tid = "TID=" + std::to_string(msg.thread_id);
  const auto& extra = LogFields::current();
  std::vector<iovec> iov;
  iov.reserve(4 + extra.size());
  auto add = [&iov](const std::string& s) {
    iov.push_back(iovec{const_cast<char*>(s.data()), s.size()});
  };
  add(message);
  add(prio_field);
  add(identifier_);
  add(tid);
  for (const auto& f : extra) add(f);
  if (sd_journal_sendv(iov.data(), static_cast<int>(iov.size())) >= 0) return;
  // journald is not there (a container without it): its stream format on stderr.
  std::string line = "<" + std::to_string(prio) + ">" + message.substr(8) + "\n";
  (void)!::write(STDERR_FILENO, line.data(), line.size());
}

}  // namespace qeli::sys
