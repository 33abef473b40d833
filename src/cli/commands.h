// One registration function per subcommand, each defined in its cmd_*.cc file.
// To add a command: write cmd_<name>.cc with register_<name>(), declare it here, and
// call it from register_commands() in commands.cc.
#pragma once

#include <iosfwd>

#include "cli/cli.h"

namespace qeli::cli {

void register_version(CLI::App& app, Context& ctx);
/// What `qeli version` and `qeli --version` print (cmd_version.cc).
void print_version(std::ostream& out);
void register_check_config(CLI::App& app, Context& ctx);
void register_show_identity(CLI::App& app, Context& ctx);
void register_rotate_identity(CLI::App& app, Context& ctx);
void register_add_client(CLI::App& app, Context& ctx);
void register_server(CLI::App& app, Context& ctx);
void register_client(CLI::App& app, Context& ctx);
void register_clients(CLI::App& app, Context& ctx);
void register_status(CLI::App& app, Context& ctx);
void register_users(CLI::App& app, Context& ctx);
void register_usage(CLI::App& app, Context& ctx);
void register_panel(CLI::App& app, Context& ctx);
void register_file_steward(CLI::App& app, Context& ctx);
void register_set_service_user(CLI::App& app, Context& ctx);
void register_install_polkit(CLI::App& app, Context& ctx);

}  // namespace qeli::cli
