// Who holds a file lock: the PID the kernel lists for it in /proc/locks (proc(5)), so a
// "held by another process" error can name the process. Informational only: the holder
// may exit at any moment, and a PID from another PID namespace may be meaningless here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace qeli::sys {

/// The PID of the first lock in `proc_locks` (the text of /proc/locks: lines like
/// "1: FLOCK  ADVISORY  WRITE 4242 fd:01:1234 0 EOF", the device as hex MAJOR:MINOR,
/// the inode in decimal) on the file with that device and inode; nullopt when none
/// matches or a line does not parse. Blocked waiters ("1: -> FLOCK …") are skipped.
std::optional<long> find_lock_holder(std::string_view proc_locks, unsigned dev_major,
                                     unsigned dev_minor, std::uint64_t inode);

/// find_lock_holder for the file at `path`, reading /proc/locks; nullopt on any error.
std::optional<long> lock_holder(const std::string& path);

}  // namespace qeli::sys
