#include "engine/datagram_counters.h"

namespace qeli::engine {

const char* to_string(DatagramDrop d) {
  switch (d) {
    case DatagramDrop::kEnvelope: return "envelope did not unwrap";
    case DatagramDrop::kShort: return "shorter than a record header";
    case DatagramDrop::kBadHeader: return "bad record header";
    case DatagramDrop::kLengthMismatch: return "record length differs from the datagram";
    case DatagramDrop::kTooSmall: return "record too small";
    case DatagramDrop::kTooLarge: return "record too large";
    case DatagramDrop::kAuthFailed: return "authentication failed";
    case DatagramDrop::kBadPadding: return "bad padding length";
    case DatagramDrop::kReplay: return "replayed or too old";
    case DatagramDrop::kNotIpv4: return "inner packet not IPv4";
    case DatagramDrop::kUnknownSource: return "unknown source address";
    case DatagramDrop::kCount: break;
  }
  return "?";
}

DatagramDrop drop_reason(wire::OpenError e) {
  switch (e) {
    case wire::OpenError::kTruncated: return DatagramDrop::kShort;
    case wire::OpenError::kBadHeader: return DatagramDrop::kBadHeader;
    case wire::OpenError::kLengthMismatch: return DatagramDrop::kLengthMismatch;
    case wire::OpenError::kTooSmall: return DatagramDrop::kTooSmall;
    case wire::OpenError::kTooLarge: return DatagramDrop::kTooLarge;
    case wire::OpenError::kAuthFailed: return DatagramDrop::kAuthFailed;
    case wire::OpenError::kBadPadding: return DatagramDrop::kBadPadding;
    case wire::OpenError::kReplay: return DatagramDrop::kReplay;
  }
  return DatagramDrop::kAuthFailed;
}

std::uint64_t DatagramDrops::total() const {
  std::uint64_t t = 0;
  for (const auto& c : n_) t += c.load(std::memory_order_relaxed);
  return t;
}

}  // namespace qeli::engine
