// Runs an operator's shell hook (`routing.post_up`, the client's `post_up`, a
// `password_command`): `/bin/sh -c COMMAND` in its own process group, with the given
// extra environment, standard input from /dev/null, standard output and error captured
// (at most kHookOutputMax bytes kept), and a deadline after which the whole group gets
// SIGTERM and, 1 s later, SIGKILL. Blocks the calling thread until the hook ends.
#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace qeli::sys {

inline constexpr std::size_t kHookOutputMax = 64 * 1024;

struct HookResult {
  bool started = false;    ///< false: fork/exec/pipe failed (error says why)
  bool timed_out = false;  ///< the deadline passed; the group was killed
  int exit_code = -1;      ///< the shell's exit status; -1 when it died of a signal
  int signal = 0;          ///< the signal that ended it, or 0
  std::string output;      ///< stdout and stderr interleaved, truncated to kHookOutputMax
  std::string error;       ///< why it could not start
  bool ok() const { return started && !timed_out && exit_code == 0; }
  /// "exit 3", "killed after the 30 s timeout", "signal 9", "could not start: ..."
  std::string describe() const;
};

using HookEnv = std::vector<std::pair<std::string, std::string>>;

/// Runs `command` with the process environment plus `env` (which wins on a clash).
/// `separate_stderr`: keep only stdout in `output` and let stderr go to ours (a
/// password_command's diagnostics must not become the password).
HookResult run_hook(const std::string& command, const HookEnv& env,
                    std::chrono::milliseconds timeout, bool separate_stderr = false);

}  // namespace qeli::sys
