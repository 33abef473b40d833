// Where a client keeps the state of its host changes: the host journal and the
// resolv.conf backup (docs/OPERATIONS.md "The journal"). Both are per TUN name AND per
// network namespace (sys/netns_identity.h), so two clients with the same `dev` in two
// namespaces of one host neither lock each other out nor undo each other's changes:
//
//   <dir>/journal-<dev><ns>.log      <dir>/resolv.conf.backup<ns>
//   <dir>/device-id-<dev><ns>        (plain <dir>/device-id for the default dev vpn0 in the
//                                     initial namespace, the path qeli always used)
//
// The device id is per dev and namespace too: the server keys sessions by user + device
// id, so two clients of one user on one host with one id would supersede each other
// forever (the trial: two `dev`s in one namespace knocked each other off).
//
// <dir> is `--state-dir` or /var/lib/qeli; <ns> is "" in the host's initial namespace
// (the paths qeli always used there), "@<name>" under `ip netns exec <name>`, else
// "@ns<inode>". `qeli client --cleanup` computes the same paths, so it must run in the
// namespace the client ran in (where its routes and tables are, too).
#pragma once

#include <optional>
#include <string>

namespace qeli::client {

inline constexpr char kDefaultStateDir[] = "/var/lib/qeli";
inline constexpr char kDefaultDev[] = "vpn0";  ///< the client's default `dev`

struct StatePaths {
  std::string journal;
  std::string resolv_backup;
  std::string device_id;
};

/// The journal file name's parts, for `--cleanup` scanning a state dir: "journal-vpn1@blue.log"
/// → {"vpn1", "@blue"}; nullopt for anything else.
struct JournalName {
  std::string dev;
  std::string netns_suffix;
};
std::optional<JournalName> parse_journal_name(const std::string& file_name);

/// Pure. An empty `state_dir` means kDefaultStateDir.
StatePaths state_paths(const std::string& state_dir, const std::string& dev,
                       const std::string& netns_suffix);

/// state_paths() for the calling thread's namespace. If /proc cannot tell, the suffix is
/// empty (the initial namespace's paths) and a warning is logged.
StatePaths current_state_paths(const std::string& state_dir, const std::string& dev);

}  // namespace qeli::client
