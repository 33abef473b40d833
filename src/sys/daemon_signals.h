// The signals a qeli daemon (server, client) takes synchronously on one thread of its
// own, instead of in handlers that could interrupt any thread anywhere.
#pragma once

#include <csignal>

namespace qeli::sys {

/// Blocks SIGINT, SIGTERM and SIGHUP in the calling thread and ignores SIGPIPE (a peer's
/// reset is an EPIPE from send(), not the end of the process). Call it before any thread
/// starts, so that every thread inherits the mask and only sigwait()/sigtimedwait() on
/// the returned set sees them.
sigset_t block_daemon_signals();

}  // namespace qeli::sys
