// Where a client keeps the state of its host changes: the host journal and the
// resolv.conf backup (docs/OPERATIONS.md "The journal"). Both are per TUN name AND per
// network namespace (sys/netns_identity.h), so two clients with the same `dev` in two
// namespaces of one host neither lock each other out nor undo each other's changes:
//
//   <dir>/journal-<dev><ns>.log      <dir>/resolv.conf.backup<ns>
//
// <dir> is `--state-dir` or /var/lib/qeli; <ns> is "" in the host's initial namespace
// (the paths qeli always used there), "@<name>" under `ip netns exec <name>`, else
// "@ns<inode>". `qeli client --cleanup` computes the same paths, so it must run in the
// namespace the client ran in (where its routes and tables are, too).
#pragma once

#include <string>

namespace qeli::client {

inline constexpr char kDefaultStateDir[] = "/var/lib/qeli";

struct StatePaths {
  std::string journal;
  std::string resolv_backup;
};

/// Pure. An empty `state_dir` means kDefaultStateDir.
StatePaths state_paths(const std::string& state_dir, const std::string& dev,
                       const std::string& netns_suffix);

/// state_paths() for the calling thread's namespace. If /proc cannot tell, the suffix is
/// empty (the initial namespace's paths) and a warning is logged.
StatePaths current_state_paths(const std::string& state_dir, const std::string& dev);

}  // namespace qeli::client
