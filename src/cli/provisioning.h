// Helpers shared by the provisioning commands (show-identity, rotate-identity,
// add-client): load the server config they edit around, refusing a broken one.
#pragma once

#include <optional>
#include <string>

#include "cli/cli.h"
#include "config/server_config.h"

namespace qeli::cli {

/// Loads `path`; on any error prints the findings to ctx.err and returns nullopt.
/// Warnings and unknown keys are not printed here (check-config reports them).
std::optional<config::ServerConfig> load_server_for_provisioning(const std::string& path,
                                                                 Context& ctx);

/// 20 characters from a 32-letter alphabet without look-alikes (100 bits).
std::string generate_password(crypto::Rng& rng);

}  // namespace qeli::cli
