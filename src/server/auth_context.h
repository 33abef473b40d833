// What a connection (TCP) or a UDP source learns while it authenticates; filled by
// Admission::admit (server/admission.h), possibly on another thread than the one that asked.
#pragma once

#include <memory>
#include <string>

#include "config/server_config.h"
#include "handshake/server_handshake.h"
#include "server/session.h"
#include "server/subnet_claims.h"
#include "server/user_directory.h"
#include "transport/endpoint.h"

namespace qeli::server {

struct AuthContext {
  handshake::AuthRequest req;
  transport::SockAddr peer;
  std::shared_ptr<const UserSnapshot> users;
  const config::UserConfig* user = nullptr;
  std::shared_ptr<Session> session;
  std::string reason;  // why it was rejected (log + counters)
  std::string device;  // the device credential's id it logged in with; empty = password
  /// The server's client_subnet claims (set with `session`): the uplink's
  /// client_to_client rule covers the networks other sessions hold.
  const SubnetClaims* subnet_claims = nullptr;
};

}  // namespace qeli::server
