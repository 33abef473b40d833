// One request to the server's control socket from a CLI command: the typed reply, or a
// printed reason (the server's refusal, or why it could not be reached) and an exit code.
#pragma once

#include <optional>
#include <ostream>
#include <sstream>
#include <string>

#include "cli/cli.h"
#include "control/control_socket.h"

namespace qeli::cli {

template <class Req>
std::optional<typename Req::Reply> ask_server(const std::string& socket, const Req& req,
                                              Context& ctx, int& rc) {
  if (socket.empty()) {
    ctx.err << "qeli: no control socket given (--socket '')\n";
    rc = kExitUsage;
    return std::nullopt;
  }
  control::SocketClient client(socket);
  auto r = control::call(client, req);
  if (!r.ok()) {
    if (r.error().code == control::ErrorCode::kUnavailable) {
      ctx.err << "qeli: " << r.error().message << "\n";
    } else {
      ctx.err << "qeli: server refused: " << r.error().message << "\n";
    }
    rc = kExitFailure;
    return std::nullopt;
  }
  rc = kExitOk;
  return std::move(*r);
}

/// The user commands' "apply it now": asks a running server to reload its users. nullopt,
/// printing nothing, when no server answered on `socket` (each caller says what that
/// means: the file is already right and is read at the next start or reload).
inline std::optional<control::ValidationResult> reload_server(const std::string& socket,
                                                              Context& ctx) {
  int rc = 0;
  std::ostringstream quiet;
  Context probe{ctx.out, quiet, ctx.in, ctx.rng};
  return ask_server(socket, control::Reload{}, probe, rc);
}

}  // namespace qeli::cli
