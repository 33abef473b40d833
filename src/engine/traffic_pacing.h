// The data path's one hook into per-user limits (engine/traffic_account.h): each send or
// receive loop calls one of these once per batch. With no account (the client, tests)
// they cost a null check.
#pragma once

#include <cstdint>

#include "engine/stop_signal.h"
#include "engine/traffic_account.h"
#include "tunio/packet_batch.h"

namespace qeli::engine {

/// IP bytes in `batch` (super-packets count whole).
std::uint64_t batch_bytes(const tunio::PacketBatch& batch);

/// Send side: charges `bytes` to the account's download and waits out the rate (woken
/// early by `stop`). False when the user's download quota is used up: the caller sends
/// what it holds, then ends the session with SessionEnd::kQuotaExhausted.
bool pace_send(TrafficAccount* account, std::uint64_t bytes, const StopSignal& stop);

/// Receive side of a carrier whose reader may sleep (TCP): charges the upload and waits
/// out the rate, woken early by either signal.
void pace_receive(TrafficAccount* account, std::uint64_t bytes, const StopSignal& stop,
                  const StopSignal& local);

}  // namespace qeli::engine
