// The error type of every host-integration call in sys/: a closed set of reasons plus a
// human-readable detail (the netlink / nftables / errno message), for the control plane.
// Nothing in sys/ throws; every call that touches the host returns HostStatus or
// HostResult<T>.
#pragma once

#include <string>

#include "base/result.h"

namespace qeli::sys {

enum class HostErrc {
  kInvalidArgument,  ///< a name, address or path that we refuse to hand to the kernel
  kNotFound,         ///< the object (route, table, file, sysctl) does not exist
  kExists,           ///< the object already exists (route add with NLM_F_EXCL)
  kPermission,       ///< EPERM / EACCES (not root, or no CAP_NET_ADMIN)
  kUnreachable,      ///< route lookup: no route to the address
  kNetlink,          ///< any other netlink failure (detail = libnl's message)
  kNftables,         ///< libnftables rejected a script (detail = its error output)
  kIo,               ///< a file-system call failed (detail names the path and errno)
  kCorrupt,          ///< a state file (journal, backup) that we cannot parse or trust
};

using HostError = Error<HostErrc>;
template <class T>
using HostResult = Result<T, HostError>;
using HostStatus = Status<HostError>;

inline Unexpected<HostError> host_fail(HostErrc code, std::string detail) {
  return fail(HostError{code, std::move(detail)});
}

/// A short stable name for logs and tests ("not-found", "netlink", ...).
const char* to_string(HostErrc code);

}  // namespace qeli::sys
