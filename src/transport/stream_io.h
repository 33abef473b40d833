// Blocking helpers over a Stream for the set-up phases (handshake flights, a layer's own
// set-up bytes), where a copy per message does not matter. The data phase never uses
// them: it seals in place into room it reserved (engine/record_writer.h).
#pragma once

#include <chrono>

#include "base/bytes.h"
#include "transport/stream.h"
#include "transport/tcp.h"

namespace qeli::transport {

/// Copies `data` into a scratch buffer laid out for `s` (its head and tail room, chunks
/// of at most max_chunk bytes) and writes it all, waiting for POLLOUT within `timeout`.
/// kTimeout also when `cancel_fd` (>= 0, e.g. a StopSignal's fd) becomes readable first.
IoResult write_copy(Stream& s, ByteSpan data, std::chrono::milliseconds timeout,
                    int cancel_fd = -1);

/// Waits until `s` may take more (POLLOUT on its fd) and resumes its pending write until
/// it completes, within `timeout` or until `cancel_fd` fires (kTimeout).
IoResult finish_write(Stream& s, std::chrono::milliseconds timeout, int cancel_fd = -1);

}  // namespace qeli::transport
