// The stream layers a TCP profile puts under the qeli handshake, server side: which
// set-up runs on an accepted connection (obfs: transport::ObfsSetup) and how much room
// its layers take in every record (the session inbox reserves it once, at start).
// The REALITY gate in front of fake-tls is server/reality_gate.h.
#pragma once

#include <memory>

#include "config/server_config.h"
#include "crypto/random.h"
#include "server/carrier_counters.h"
#include "transport/obfs_setup.h"
#include "transport/stream.h"

namespace qeli::server {

/// The overhead of the profile's stream stack (server side: WebSocket frames unmasked).
transport::Overhead tcp_carrier_overhead(const config::ProfileConfig& p);

/// The obfs set-up for one accepted connection, or null when the mode has none.
/// `unix_now` dates nginx's answers to a stranger; `keep_alive` false: each answer
/// closes the connection (the server sheds idle decoy connections under load, as nginx
/// drops idle keep-alive connections when it runs short).
std::unique_ptr<transport::ObfsSetup> make_obfs_setup(const config::ProfileConfig& p,
                                                      crypto::Rng& rng, std::uint64_t unix_now,
                                                      bool keep_alive);

/// The counter of a failed obfs set-up.
CarrierCounter counter_of(transport::ObfsFailure f);

/// Seconds since the Unix epoch (wall clock: tokens, the 404's Date, the replay file).
std::uint64_t unix_now();

}  // namespace qeli::server
