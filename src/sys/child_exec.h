// Starting a helper process of the server (the web panel, the file steward): fork, then
// exec with one descriptor handed over and nothing else of the parent's open.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <string>
#include <vector>

namespace qeli::sys {

/// fork + execv(`argv`[0], `argv`) with `fd` as descriptor `target` in the child (its
/// O_CLOEXEC cleared), every descriptor above `target` closed, the signal mask `mask` and
/// SIGINT, SIGTERM, SIGHUP, SIGPIPE at their defaults (the server blocks or ignores them in
/// its threads). Everything is prepared before fork: the child makes only async-signal-
/// safe calls (the server has threads). The parent's `fd` stays open (the caller closes
/// it). Returns the pid, or -1 with errno set when fork failed; an exec failure is the
/// child's exit status 127.
pid_t spawn_with_fd(const std::vector<std::string>& argv, int fd, int target, const sigset_t& mask);

}  // namespace qeli::sys
