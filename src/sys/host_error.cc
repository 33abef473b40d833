#include "sys/host_error.h"

namespace qeli::sys {

const char* to_string(HostErrc code) {
  switch (code) {
    case HostErrc::kInvalidArgument: return "invalid-argument";
    case HostErrc::kNotFound: return "not-found";
    case HostErrc::kExists: return "exists";
    case HostErrc::kPermission: return "permission";
    case HostErrc::kUnreachable: return "unreachable";
    case HostErrc::kNetlink: return "netlink";
    case HostErrc::kNftables: return "nftables";
    case HostErrc::kIo: return "io";
    case HostErrc::kCorrupt: return "corrupt";
  }
  return "unknown";
}

}  // namespace qeli::sys
