// qeli version [--json] [--check]  and  qeli --version: what this binary is.
#include <CLI/CLI.hpp>

#include <memory>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "base/build_info.h"
#include "cli/commands.h"
#include "cli/git_revision.h"
#include "handshake/types.h"

namespace qeli::cli {
namespace {

// The extensions this build can negotiate with another qeli (docs/PROTOCOL.md §10–§22;
// AES-256-GCM records only on a CPU with AES-GCM instructions); a 0.7.16 peer sees none.
std::string extension_names() {
  std::string out;
  for (const auto& e : handshake::caps::kNamed) {
    if (!out.empty()) out += ", ";
    out += e.name;
  }
  return out;
}

}  // namespace

void print_version(std::ostream& out) {
  out << "qeli " << build::version() << " (" << build::git_revision() << ")\n"
      << "protocol: qeli 0.7.16 wire format; extensions: " << extension_names() << "\n"
      << "build: " << build::build_type() << ", " << build::compiler() << ", " << build::features()
      << "\n"
      << "flags: " << build::cxx_flags() << "\n";
}

void register_version(CLI::App& app, Context& ctx) {
  auto json = std::make_shared<bool>(false);
  auto check = std::make_shared<bool>(false);
  auto* cmd = app.add_subcommand("version", "Print the version, git revision, protocol and build");
  cmd->add_flag("--json", *json, "One JSON object");
  cmd->add_flag("--check", *check,
                "0.7.16 asks GitHub for a newer release here; this build never calls out "
                "(it says so and exits 1)");
  cmd->callback([&ctx, json, check] {
    // A VPN server that fetches release metadata on its own is one more fingerprint and
    // one more outbound dependency: updates come from the package manager. Exit 1 so a
    // script never reads "up to date" into it.
    if (*check) {
      print_version(ctx.out);
      ctx.err << "qeli version --check: this build does not contact the network to look for "
                 "updates; new releases come through your package manager (apt)\n";
      ctx.exit_code = kExitFailure;
      return;
    }
    if (*json) {
      ctx.out << nlohmann::json{{"version", build::version()},
                                {"git_revision", build::git_revision()},
                                {"protocol", "qeli 0.7.16"},
                                {"extensions", extension_names()},
                                {"build_type", build::build_type()},
                                {"compiler", build::compiler()},
                                {"features", build::features()},
                                {"cxx_flags", build::cxx_flags()}}
                     .dump()
              << "\n";
    } else {
      print_version(ctx.out);
    }
    ctx.exit_code = kExitOk;
  });
}

}  // namespace qeli::cli
