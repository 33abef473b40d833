// The `qeli` command line: one CLI11 app whose subcommands each live in their own
// cmd_*.cc file and are registered in commands.cc (the one place to add a command).
//
// run_cli() is the whole program minus process concerns, so tests run commands
// in-process with string streams; main.cc only forwards argv and the std streams.
#pragma once

#include <sys/types.h>

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace qeli::crypto {
class Rng;
}

namespace qeli::cli {

/// Streams and services a command may use. Commands never touch std::cout/cin directly.
struct Context {
  std::ostream& out;
  std::ostream& err;
  std::istream& in;
  crypto::Rng& rng;
  int exit_code = 0;  // set by the command that ran
  /// The effective uid the commands that need root check (set-service-user,
  /// install-polkit); nullopt: geteuid(). Tests set it to reach the refusal as root.
  std::optional<uid_t> euid{};
};

/// Exit codes: 0 success, 1 the command failed (bad config, refused input, I/O error),
/// 2 command-line usage error (CLI11's own code for parse errors is 106+; we map to 2).
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

/// Parses `args` (without the program name) and runs the chosen subcommand.
int run_cli(const std::vector<std::string>& args, Context& ctx);

/// Adds every subcommand to `app` (commands.cc).
void register_commands(CLI::App& app, Context& ctx);

}  // namespace qeli::cli
