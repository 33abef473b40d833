// Writing opened packets to a TUN queue from a session's receive side.
#pragma once

#include <mutex>

#include "engine/stop_signal.h"
#include "tunio/packet_batch.h"
#include "tunio/tun_device.h"
#include "tunnel/session_counters.h"

namespace qeli::engine {

/// A TUN queue and the lock that serialises its writers (several sessions may share a
/// queue on a server; null when this thread is the queue's only writer).
struct TunWriter {
  tunio::TunDevice* tun = nullptr;
  std::mutex* mu = nullptr;
};

/// Writes batch[0..] (GRO-coalesced by the device, or already coalesced by a datagram
/// framer) to the queue, waiting for POLLOUT while it is full, then clears the batch.
/// Packets the kernel refuses count in kDropTunWrite. False if the TUN failed. With no
/// device (tw.tun null) the batch is dropped (a test without a TUN).
bool flush_tun(TunWriter& tw, tunio::PacketBatch& batch, const StopSignal& stop,
               tunnel::SessionCounters& counters);

}  // namespace qeli::engine
