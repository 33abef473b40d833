#include "tunnel/session_counters.h"

namespace qeli::tunnel {

std::string describe_drops(const SessionCounters& c) {
  std::string out;
  for_each_counter(c, [&](const CounterInfo& info, SessionCounter id, std::uint64_t n) {
    if (n == 0 || id < SessionCounter::kDropNotIpv4) return;
    // "drop_queue_full" reads "queue_full" in the line that already says "drops:";
    // the fragmentation counters keep their historical short names.
    std::string_view name = info.name;
    if (name.starts_with("drop_")) name.remove_prefix(5);
    if (id == SessionCounter::kFragNeededSent) name = "frag_needed";
    if (id == SessionCounter::kFragTx) name = "fragmented";
    if (!out.empty()) out += ' ';
    out += name;
    out += '=';
    out += std::to_string(n);
  });
  return out.empty() ? "none" : out;
}

RecordDrop drop_reason(wire::OpenError e) {
  switch (e) {
    case wire::OpenError::kTruncated: return RecordDrop::kShort;
    case wire::OpenError::kBadHeader: return RecordDrop::kBadHeader;
    case wire::OpenError::kLengthMismatch: return RecordDrop::kLengthMismatch;
    case wire::OpenError::kTooSmall: return RecordDrop::kTooSmall;
    case wire::OpenError::kTooLarge: return RecordDrop::kTooLarge;
    case wire::OpenError::kAuthFailed: return RecordDrop::kAuthFailed;
    case wire::OpenError::kBadPadding: return RecordDrop::kBadPadding;
    case wire::OpenError::kReplay: return RecordDrop::kReplay;
  }
  return RecordDrop::kAuthFailed;
}

}  // namespace qeli::tunnel
