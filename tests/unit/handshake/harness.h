// Runs a ClientHandshake against a ServerHandshake in memory: output of one side is fed
// to the other in chunks of `chunk` bytes (1 = one byte per read), optionally with one bit
// flipped at a given offset of either direction's byte stream. The "server application"
// accepts user alice / password "s3cret:pw" and the JOIN token it issued.
#pragma once

#include <optional>
#include <vector>

#include "crypto/random.h"
#include "crypto/x25519.h"
#include "handshake/client_handshake.h"
#include "handshake/server_handshake.h"

namespace qeli::handshake::test {

struct Flip {
  bool client_to_server = true;
  std::size_t bit = 0;  ///< bit offset in that direction's byte stream
};

struct Outcome {
  State client_state = State::kRunning;
  Failure client_failure = Failure::kNone;
  State server_state = State::kRunning;
  Failure server_failure = Failure::kNone;
  std::optional<ClientSession> client;
  std::optional<ServerSession> server;
  std::vector<AuthRequest> auth_requests;
  std::vector<JoinRequest> join_requests;
  Bytes c2s;                            ///< every byte the client sent (before any flip)
  Bytes s2c;                            ///< every byte the server sent
  Bytes c2s_after_done;                 ///< client bytes that arrived after the server handed over
  std::vector<Outgoing> server_chunks;  ///< the server's output chunks, as emitted
};

struct Harness {
  explicit Harness(Mode mode, std::uint64_t seed = 1);

  crypto::DeterministicRng client_rng;
  crypto::DeterministicRng server_rng;
  crypto::X25519KeyPair identity;
  ClientConfig client_cfg;
  ServerConfig server_cfg;
  AuthOk auth_ok;  ///< what the server application answers
  std::size_t chunk = 1 << 20;
  std::optional<Flip> flip;
  /// Test hook: replaces the server's bytes before the client sees them.
  std::optional<Bytes> replace_server_output;
  /// Test hook: the server sends a data record with this plaintext in the same write as
  /// its AUTH OK (so the client reads past the handshake in one on_bytes call).
  std::optional<Bytes> server_data_after_ok;

  Outcome run();
};

AuthOk sample_auth_ok();

}  // namespace qeli::handshake::test
