// Which network namespace the calling thread is in, as a name that is stable enough to key
// per-instance state files (the client's host journal and resolv.conf backup): routes,
// nftables tables and (under `ip netns exec`) /etc/resolv.conf are per namespace, so two
// clients with the same TUN name in two namespaces must not share one journal.
//
//   initial namespace (the same as PID 1's)  → ""           (the paths of a plain host;
//                                                            stable across reboots)
//   a namespace named under /run/netns       → "@<name>"    (`ip netns add NAME`; the name
//                                                            survives the namespace)
//   any other namespace                      → "@ns<inode>" (a container's, unnamed)
#pragma once

#include <cstdint>
#include <string>

#include "sys/host_error.h"

namespace qeli::sys {

struct NetnsIdentity {
  bool initial = false;
  std::string name;         ///< the /run/netns entry, if one matches (first in order)
  std::uint64_t inode = 0;  ///< the nsfs inode of the namespace
};

struct NetnsProbePaths {
  std::string self = "/proc/thread-self/ns/net";
  std::string initial = "/proc/1/ns/net";
  std::string named_dir = "/run/netns";
};

/// Compares namespace files by device and inode. kIo if `self` cannot be read; an
/// unreadable `initial` or `named_dir` just means "not that".
HostResult<NetnsIdentity> current_netns(const NetnsProbePaths& paths = {});

/// The suffix described above (pure). A name outside [A-Za-z0-9_.-]{1,64} or starting
/// with '.' falls back to the inode form, so the result is always safe in a file name.
std::string netns_suffix(const NetnsIdentity& id);

}  // namespace qeli::sys
