// Where `qeli client` gets its settings (docs/OPERATIONS.md "Starting the client"):
//
//   qeli client -c FILE              the [qeli] file alone
//   qeli client LINK                 the link alone (host settings keep their defaults)
//   qeli client --link-file FILE     the link read from a file (first non-empty line that
//                                    is not a # comment), so it never shows in `ps`
//   qeli client -                    the link read from standard input (one line)
//   any link form + -c FILE          both: the link says where and who, the file how this
//                                    host is set up (config::apply_link has the rule)
//
// A link is trimmed of surrounding spaces and quotes. The warnings returned are for the
// log: a link with a password given as an argument (every local user sees it in `ps`, and
// it lands in the shell history), and a config file holding a secret that group or
// others may read.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "config/client_config.h"

namespace qeli::cli {

struct ClientSource {
  std::string config_path;    ///< -c (the default path if `config_given` is false)
  bool config_given = false;  ///< -c was on the command line
  std::string link_argument;  ///< LINK, or "-" for standard input
  std::string link_file;      ///< --link-file
};

struct ClientSettings {
  config::ClientLoad load;
  std::vector<std::string> warnings;
  std::string error;  ///< non-empty: refused before any config was read (bad link, no link)
};

/// Reads the link and/or the config as `src` says. `in` is standard input (for "-").
ClientSettings load_client_settings(const ClientSource& src, std::istream& in);

/// The warning for a file holding a secret readable by group/others, or nullopt (also when
/// the file cannot be stat'ed: reading it will say why).
std::optional<std::string> readable_secret_warning(const std::string& path, const char* what);

}  // namespace qeli::cli
