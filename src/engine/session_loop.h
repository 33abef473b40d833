// The data phase of one session, for either carrier: ONE loop that drives a
// tunnel::Session (sans-I/O) over a FrameIo (StreamFramer or DatagramFramer).
//
//   send thread (run_sender):
//     1. the initial control frames (the client's MTU report and info);
//     2. poll(packet source, stop, the heartbeat deadline);
//     3. a batch from the source (TUN reads on the client, the session inbox on the
//        server) → Sender::refresh (peer caps and MTU) → Sender::seal (in place, a
//        RecordQueue at a time) → FrameIo::write (one sendmsg / sendmmsg per queue);
//     4. a heartbeat when the interval passed without a write;
//     5. on the stop signal, between records: the farewell frame (our close extension),
//        farewell_copies() times, best effort.
//   receive loop (run_session, on the calling thread):
//     poll(carrier, stop, the Receiver's deadline) → FrameIo::receive (records opened
//     and classified by the Receiver) → the TUN batch → flush_tun; liveness and idle
//     deadlines end the session.
// Either half ending ends both; the session's EndLatch says why (the first reason wins).
// Encryption and decryption of one session run on different cores. A UDP server worker
// runs only run_sender per session and receives for all its sessions itself.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>

#include "base/clock.h"
#include "engine/frame_io.h"
#include "engine/packet_source.h"
#include "engine/stop_signal.h"
#include "engine/traffic_account.h"
#include "engine/tun_sink.h"
#include "tunnel/session.h"

namespace qeli::engine {

/// Milliseconds from `now` until `t` for poll(), 0 if it has passed, at most `cap`.
int ms_until(Instant t, Instant now, int cap = 1000);
/// As above against the steady clock (no cap).
int ms_until(Instant t);

/// Seals all of `batch` with `tx` (after Sender::refresh) and writes it through `io`, a
/// RecordQueue `q` at a time. nullopt when all of it went out; otherwise why the session
/// must end, or kStopped when `stop` fired while the carrier was full (the carrier may
/// then hold part of a record: no farewell may follow).
std::optional<tunnel::SessionEnd> send_batch(tunnel::Sender& tx, FrameIo& io,
                                             tunio::PacketBatch& batch, tunnel::RecordQueue& q,
                                             const StopSignal& stop);

/// The send half until `stop` fires or sending fails; returns why it ended (kStopped on
/// a stop, after the farewell). The farewell hook is asked with session.end().get().
/// `account` (server; null = none): each batch is charged to the user's download and
/// paced to its rate (engine/traffic_pacing.h); a used-up quota ends the session with
/// kQuotaExhausted, whose farewell waits up to kQuotaFarewellWait for room.
tunnel::SessionEnd run_sender(tunnel::Session& session, FrameIo& io, PacketSource& source,
                              const StopSignal& stop, const Clock& clock,
                              std::size_t batch_packets = 64, TrafficAccount* account = nullptr);

/// Both halves (see above) until `stop` fires or the session ends; returns why (also
/// recorded in session.end()). `source`, `io` and the TUN outlive the call. `account`
/// also paces the receive half to the user's upload rate (the reader sleeps, so a TCP
/// peer backs off). A process that did not run for longer than the liveness deadline
/// (suspend, SIGSTOP: engine/stall_detector.h) ends the session with kLiveness at once.
tunnel::SessionEnd run_session(tunnel::Session& session, FrameIo& io, PacketSource& source,
                               TunWriter tun, const StopSignal& stop, const Clock& clock,
                               std::size_t batch_packets = 64, TrafficAccount* account = nullptr);

/// How long a quota farewell may wait for room in a full carrier: the quota ends a
/// session mid-download with the socket full, and the client must still learn why (else
/// it reconnects into refusals).
inline constexpr std::chrono::milliseconds kQuotaFarewellWait{2000};

}  // namespace qeli::engine
