#include <CLI/CLI.hpp>

#include "cli/commands.h"

namespace qeli::cli {

void register_commands(CLI::App& app, Context& ctx) {
  register_version(app, ctx);
  register_check_config(app, ctx);
  register_show_identity(app, ctx);
  register_rotate_identity(app, ctx);
  register_add_client(app, ctx);
  register_server(app, ctx);
  register_client(app, ctx);
  register_clients(app, ctx);
  register_status(app, ctx);
  register_users(app, ctx);
  register_usage(app, ctx);
  register_panel(app, ctx);
  register_file_steward(app, ctx);
  register_set_service_user(app, ctx);
  register_install_polkit(app, ctx);
}

}  // namespace qeli::cli
