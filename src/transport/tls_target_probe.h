// The reality-tls target prober: connects to the target with our Chromium hello, runs a
// real TLS 1.3 handshake (tls::ClientHandshake), waits briefly for the NewSessionTicket
// records the target sends after our Finished, closes, and turns what it saw into a
// tls::TargetShape (tls/shape_extractor.h). Thin I/O over the sans-I/O machines.
//
// Blocking; run it on a thread that may wait (start-up, the periodic refresh). It sends
// traffic only to the configured target.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "base/result.h"
#include "crypto/random.h"
#include "tls/client_hello_builder.h"
#include "tls/target_shape.h"

namespace qeli::transport {

struct TargetProbeConfig {
  std::string host;  ///< name or IPv4 literal
  std::uint16_t port = 443;
  std::string sni;                              ///< the server name our clients send (the target's)
  std::chrono::milliseconds timeout{8000};      ///< connect + handshake
  std::chrono::milliseconds ticket_wait{1500};  ///< at most, after our Finished
  std::chrono::milliseconds ticket_idle{300};   ///< stop after this long without a record
  int cancel_fd = -1;                           ///< readable = give up (a stopping daemon)
  /// The hello to send; unset = a fresh Chromium hello for `sni` (what the server does).
  /// The e2e test sends one with a REALITY token to see our terminator's answer.
  std::function<tls::BuiltClientHello(crypto::Rng&)> hello;
};

/// The target's shape, or why it could not be measured (resolution, connect, TLS alert,
/// a HelloRetryRequest, a flight we cannot parse, …).
Result<tls::TargetShape, std::string> probe_target(const TargetProbeConfig& config,
                                                   crypto::Rng& rng);

/// probe_target(), or tls::fallback_shape() with the reason when it fails. `error`
/// receives that reason (empty when the probe worked).
std::shared_ptr<const tls::TargetShape> probe_or_fallback(const TargetProbeConfig& config,
                                                          crypto::Rng& rng, std::string* error);

}  // namespace qeli::transport
