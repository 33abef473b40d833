// Running the host-setup commands (set-service-user, install-polkit) in-process on a
// temporary --root, with ctx.euid standing in for who runs them.
#pragma once

#include <sys/types.h>

#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "crypto/random.h"

namespace qeli::test {

struct Outcome {
  int rc;
  std::string out;
  std::string err;
};

/// `qeli COMMAND ARGS... --root ROOT` as `euid` (0: root).
inline Outcome run_under_root(const std::string& command, std::vector<std::string> args,
                              const std::string& root, std::optional<uid_t> euid) {
  args.insert(args.begin(), command);
  args.insert(args.end(), {"--root", root});
  std::ostringstream out, err;
  std::istringstream in;
  cli::Context ctx{out, err, in, crypto::system_rng()};
  ctx.euid = euid;
  const int rc = cli::run_cli(args, ctx);
  return {rc, out.str(), err.str()};
}

inline std::string read_text(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

}  // namespace qeli::test
