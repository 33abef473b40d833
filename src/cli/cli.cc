#include "cli/cli.h"
#include "cli/commands.h"

#include <CLI/CLI.hpp>

#include <optional>
#include <ostream>

#include "base/suggest.h"

namespace qeli::cli {
namespace {

std::vector<std::string> subcommand_names(CLI::App& app) {
  std::vector<std::string> names;
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    names.push_back(sub->get_name());
  }
  return names;
}

CLI::App* find_subcommand(CLI::App& app, const std::string& name) {
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    if (sub->get_name() == name) return sub;
  }
  return nullptr;
}

// `qeli`, `qeli help [COMMAND]`, and a word that is no command: help instead of CLI11's
// bare "A subcommand is required". Returns the exit code, or nullopt to parse normally.
std::optional<int> help_or_suggestion(CLI::App& app, const std::vector<std::string>& args,
                                      Context& ctx) {
  if (args.empty()) {
    ctx.err << app.help() << "\nqeli: give a command (above); `qeli help COMMAND` describes one\n";
    return kExitUsage;
  }
  const std::string& first = args[0];
  if (first == "help") {
    if (args.size() == 1) {
      ctx.out << app.help();
      return kExitOk;
    }
    if (CLI::App* sub = find_subcommand(app, args[1])) {
      ctx.out << sub->help();
      return kExitOk;
    }
    ctx.err << "qeli help: no command '" << args[1] << "'";
    if (auto near = closest_name(args[1], subcommand_names(app))) {
      ctx.err << "; did you mean '" << *near << "'?";
    }
    ctx.err << "\n";
    return kExitUsage;
  }
  if (first.empty() || first[0] == '-' || find_subcommand(app, first) != nullptr) {
    return std::nullopt;
  }
  ctx.err << "qeli: '" << first << "' is not a qeli command.";
  if (auto near = closest_name(first, subcommand_names(app))) {
    ctx.err << " Did you mean '" << *near << "'?\n";
  } else {
    ctx.err << " The commands are:\n\n" << app.help();
  }
  ctx.err << "(`qeli help` lists every command.)\n";
  return kExitUsage;
}

}  // namespace

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
  if (auto rc = help_or_suggestion(app, args, ctx)) return *rc;
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
