// Turns what the target sent our Chromium hello (ClientHandshake::server_flight() and the
// NewSessionTicket records the RecordReceiver kept) into a TargetShape. Sans-I/O; the
// prober (transport/tls_target_probe.h) does the connecting.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "tls/client_handshake.h"
#include "tls/record_channel.h"
#include "tls/target_shape.h"

namespace qeli::tls {

/// kDecode if the flight is incomplete or inconsistent (a message we cannot re-parse, a
/// record that does not account for its bytes).
/// `unprompted` = wire sizes of the application-data records that followed the tickets.
Result<TargetShape, TlsError> extract_shape(const ServerFlight& flight,
                                            const std::vector<ControlRecord>& post_handshake,
                                            std::vector<std::size_t> unprompted,
                                            std::string source);

}  // namespace qeli::tls
