// Durable small-file helpers for state that must survive kill -9 and power loss: a file
// is replaced by writing a temporary file beside it, fsync()ing it, rename()ing it over
// the target and fsync()ing the directory (rename(2) is atomic; the directory fsync
// makes the new name durable).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sys/host_error.h"

namespace qeli::sys {

/// What lstat(2) says about a path, without following a final symlink.
struct PathState {
  enum class Kind { kAbsent, kFile, kSymlink, kOther } kind = Kind::kAbsent;
  mode_t mode = 0;  ///< permission bits (07777) of a regular file
  uid_t uid = 0;
  gid_t gid = 0;
};

HostResult<PathState> inspect_path(const std::string& path);

/// The whole content of a regular file, at most `max_bytes` (kCorrupt if larger).
HostResult<std::string> read_small_file(const std::string& path, std::size_t max_bytes);

/// The target of a symlink (readlink(2)).
HostResult<std::string> read_link(const std::string& path);

/// Atomically replaces `path` with a regular file holding `content`, with permission
/// bits `mode` and, if given, the owner `owner` (uid, gid). If `path` is a mount point
/// (EBUSY: a bind-mounted file, as /etc/resolv.conf in containers), it is rewritten in
/// place instead, keeping its own mode and owner.
HostStatus write_file_atomic(const std::string& path, const std::string& content, mode_t mode,
                             std::optional<std::pair<uid_t, gid_t>> owner = std::nullopt);

/// Atomically replaces `path` with a symlink to `target`.
HostStatus write_symlink_atomic(const std::string& path, const std::string& target);

/// unlink(2) + directory fsync; a missing file is success.
HostStatus remove_file(const std::string& path);

/// mkdir -p with `mode` for the directories it creates.
HostStatus make_dirs(const std::string& dir, mode_t mode);

/// fsync of the directory that contains `path`.
HostStatus sync_parent_dir(const std::string& path);

/// The directory part of `path` ("." if there is none).
std::string parent_dir(const std::string& path);

/// The space-separated words of one line of a kernel or state file (runs of spaces
/// count as one separator); views into `line`.
std::vector<std::string_view> split_words(std::string_view line);

}  // namespace qeli::sys
