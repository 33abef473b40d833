// Least privilege for the server after start-up (docs/OPERATIONS.md "Privileges").
//
// The server opens everything that needs root first — TUN queues, listening sockets
// (ports < 1024), netlink and nftables handles, the identity keys, the log file — and
// then calls drop_privileges() once, before it serves anyone:
//
//   1. the paths it will still write are given to the service user: `own` (control
//      socket and its directory) to the user, `share` (the log file) to the user's group
//      with group read/write — root keeps owning it, because the next start (root
//      without CAP_DAC_OVERRIDE under systemd) must open it again;
//   2. supplementary groups → the user's group only; gid and uid → the user's (all
//      three ids: real, effective, saved; setresuid, so there is no way back);
//   3. capabilities → exactly `keep` in the permitted and effective sets (by default
//      CAP_NET_ADMIN: the NAT table removed at stop, and netlink changes on reload);
//      none inheritable, none ambient; the bounding set cut to `keep` when the process
//      may (CAP_SETPCAP), so not even an exec could regain more;
//   4. PR_SET_NO_NEW_PRIVS, and the process stays non-dumpable (no core with keys).
//
// Every step is checked: an error leaves the process as it was before that step, and
// the caller must refuse to go on (never run half-dropped). Linux only; libcap.
#pragma once

#include <sys/types.h>
#include <string>
#include <vector>

#include "base/result.h"

namespace qeli::sys {

struct PrivilegeDrop {
  std::string user;              ///< the account to become (e.g. "qeli"); must exist
  std::vector<int> keep;         ///< CAP_* values kept in the permitted/effective sets
  std::vector<std::string> own;  ///< paths chown'ed to the user first, in order (missing skipped)
  std::vector<std::string>
      share;  ///< files chgrp'ed to the user's group, mode g+rw (missing skipped)
};

struct DroppedTo {
  uid_t uid;
  gid_t gid;
  std::string caps;  ///< the kept capabilities as text ("cap_net_admin=ep")
};

/// Error: a message naming the step and errno (unknown user, setresuid refused, …).
Result<DroppedTo, std::string> drop_privileges(const PrivilegeDrop& plan);

/// For processes that need no privilege at all (the web panel): every capability out of
/// the effective, permitted, inheritable and ambient sets, the bounding set cut when the
/// process may, PR_SET_NO_NEW_PRIVS. The uid stays (see drop_privileges for that). Error:
/// the step that failed; the caller must not go on.
Status<std::string> drop_all_capabilities();
/// The same, keeping `keep` (CAP_* numbers) effective and permitted (the server's file
/// steward keeps CAP_CHOWN: server/file_steward.h).
Status<std::string> drop_capabilities_except(const std::vector<int>& keep);

/// For the calling thread only, while the object lives: files are opened with the
/// permissions of, and created owned by, `user` (setfsuid/setfsgid, Linux). For what the
/// server creates before drop_privileges() in the user's own state directory: under
/// systemd root has no CAP_DAC_OVERRIDE, so only the owner may create files there.
/// Changing the filesystem ids also drops root's file capabilities for that thread; the
/// destructor restores both. Error: unknown user or root (nothing to switch to).
class FilesAsUser {
 public:
  static Result<FilesAsUser, std::string> enter(const std::string& user);
  FilesAsUser(FilesAsUser&& o) noexcept : active_(o.active_), uid_(o.uid_), gid_(o.gid_) {
    o.active_ = false;
  }
  FilesAsUser& operator=(FilesAsUser&&) = delete;
  FilesAsUser(const FilesAsUser&) = delete;
  ~FilesAsUser();

 private:
  FilesAsUser(uid_t old_uid, gid_t old_gid) : active_(true), uid_(old_uid), gid_(old_gid) {}
  bool active_;
  uid_t uid_;  ///< the filesystem ids to restore
  gid_t gid_;
};

/// The capability names of `caps`, e.g. "cap_net_admin" (for logs and docs).
std::string capability_names(const std::vector<int>& caps);

}  // namespace qeli::sys
