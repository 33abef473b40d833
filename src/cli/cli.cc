#include "cli/cli.h"
#include "cli/commands.h"

#include <CLI/CLI.hpp>

#include <ostream>

namespace qeli::cli {

int run_cli(const std::vector<std::string>& args, Context& ctx) {
  CLI::App app{"qeli — a self-hosted layer-3 VPN (wire-compatible with qeli 0.7.16)", "qeli"};
  app.require_subcommand(1);
  app.fallthrough(false);
  register_commands(app, ctx);
  // `qeli --version` answers like `qeli version` (CLI11's own version flag would print
  // one fixed string and throw before the subcommand requirement is checked).
  if (!args.empty() && (args[0] == "--version" || args[0] == "-V")) {
    print_version(ctx.out);
    return kExitOk;
  }
  // CLI11 wants argv in reverse order when given a vector.
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp& e) {
    app.exit(e, ctx.out, ctx.err);
    return kExitOk;
  } catch (const CLI::CallForAllHelp& e) {
    app.exit(e, ctx.out, ctx.err);
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    app.exit(e, ctx.out, ctx.err);
    return e.get_exit_code() == 0 ? kExitOk : kExitUsage;
  }
  return ctx.exit_code;
}

}  // namespace qeli::cli
