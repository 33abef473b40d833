// One request to the server's control socket from a CLI command: the typed reply, or a
// printed reason (the server's refusal, or why it could not be reached) and an exit code.
#pragma once

#include <optional>
#include <ostream>
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

}  // namespace qeli::cli
