#include "engine/session_loop.h"

#include <poll.h>

#include <cerrno>
#include <chrono>
#include <thread>

#include "engine/stall_detector.h"
#include "engine/traffic_pacing.h"

namespace qeli::engine {
namespace {

using tunnel::Outbound;
using tunnel::SessionEnd;
using Status = ReceiveResult::Status;

// Writes one record (a control frame, heartbeat or farewell) through `io`.
WriteStatus write_one(FrameIo& io, tunnel::RecordQueue& q, MutableByteSpan record,
                      const StopSignal& stop) {
  q.clear();
  q.push(record);
  return io.write(q, stop);
}

}  // namespace

std::optional<SessionEnd> send_batch(tunnel::Sender& tx, FrameIo& io, tunio::PacketBatch& batch,
                                     tunnel::RecordQueue& q, const StopSignal& stop) {
  tx.refresh();
  batch.set_cursor(0);
  tx.sealer().restart();
  for (;;) {
    q.clear();
    tx.recycle();
    const tunnel::SealStatus st = tx.seal(batch, q);
    if (st == tunnel::SealStatus::kCounterExhausted) return SessionEnd::kCounterExhausted;
    if (!q.empty()) {
      const WriteStatus w = io.write(q, stop);
      if (w != WriteStatus::kOk) {
        tx.recycle();
        return w == WriteStatus::kStopped ? SessionEnd::kStopped : from_write(w);
      }
    }
    if (st == tunnel::SealStatus::kDone) {
      tx.recycle();
      return std::nullopt;
    }
  }
}

int ms_until(Instant t, Instant now, int cap) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(t - now).count();
  if (left <= 0) return 0;
  return left > cap ? cap : static_cast<int>(left);
}

int ms_until(Instant t) {
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(t - std::chrono::steady_clock::now());
  return left.count() <= 0 ? 0 : static_cast<int>(left.count());
}

SessionEnd run_sender(tunnel::Session& session, FrameIo& io, PacketSource& source,
                      const StopSignal& stop, const Clock& clock, std::size_t batch_packets,
                      TrafficAccount* account) {
  tunnel::Sender& tx = session.sender();
  tunnel::RecordQueue q;
  for (std::size_t i = 0;; ++i) {
    const auto o = tx.initial(i);
    if (!o) break;
    if (o->kind == Outbound::Kind::kEnd) return o->end;
    const WriteStatus w = write_one(io, q, o->record, stop);
    if (w != WriteStatus::kOk) return from_write(w);
    tx.on_sent(clock.now());
  }
  const tunnel::CarrierRoom room = session.room();
  tunio::PacketBatch batch = source.make_batch(batch_packets, tx.params().max_packet,
                                               room.headroom(), room.tailroom(tx.params().padding));
  bool at_boundary = true;
  bool quota = false;
  while (!stop.stopped()) {
    const auto due = tx.deadline();
    pollfd p[2] = {{source.fd(), POLLIN, 0}, {stop.fd(), POLLIN, 0}};
    const int rc = ::poll(p, 2, due ? ms_until(*due, clock.now()) : 1000);
    if (rc < 0 && errno != EINTR) return SessionEnd::kTunError;
    if (p[1].revents != 0) break;
    if (p[0].revents != 0) {
      batch.clear();
      if (!source.fill(batch)) return SessionEnd::kTunError;
      if (!batch.empty()) {
        const std::uint64_t bytes = account != nullptr ? batch_bytes(batch) : 0;
        if (const auto e = send_batch(tx, io, batch, q, stop)) {
          if (*e != SessionEnd::kStopped) return *e;
          at_boundary = false;  // stopped half-way through a write: no farewell
          break;
        }
        tx.on_sent(clock.now());
        if (!pace_send(account, bytes, stop)) {
          quota = true;  // at a record boundary: the farewell says why
          session.end().set(SessionEnd::kQuotaExhausted);
          break;
        }
      }
    }
    const Outbound hb = tx.on_timer(clock.now());
    if (hb.kind == Outbound::Kind::kEnd) return hb.end;
    if (hb.kind == Outbound::Kind::kRecord) {
      const WriteStatus w = write_one(io, q, hb.record, stop);
      if (w == WriteStatus::kStopped) {
        at_boundary = false;
        break;
      }
      if (w != WriteStatus::kOk) return from_write(w);
      tx.on_sent(clock.now());
    }
  }
  // Stopped between records: say goodbye if the session wants to. `stop` has fired, so
  // no write waits for room (a full carrier drops it).
  if (at_boundary && quota) {
    // `stop` has not fired: bound the wait for room by kQuotaFarewellWait (or `stop`).
    StopSignal deadline;
    std::thread timer([&] {
      pollfd p[2] = {{deadline.fd(), POLLIN, 0}, {stop.fd(), POLLIN, 0}};
      (void)::poll(p, 2, static_cast<int>(kQuotaFarewellWait.count()));
      deadline.stop();
    });
    const Outbound bye = tx.farewell(SessionEnd::kQuotaExhausted);
    for (int i = 0; bye.kind == Outbound::Kind::kRecord && i < io.farewell_copies(); ++i) {
      if (write_one(io, q, bye.record, deadline) != WriteStatus::kOk) break;
    }
    deadline.stop();
    timer.join();
    return SessionEnd::kQuotaExhausted;
  }
  if (at_boundary) {
    const Outbound bye = tx.farewell(session.end().get());
    for (int i = 0; bye.kind == Outbound::Kind::kRecord && i < io.farewell_copies(); ++i) {
      if (write_one(io, q, bye.record, stop) != WriteStatus::kOk) break;
    }
  }
  return SessionEnd::kStopped;
}

SessionEnd run_session(tunnel::Session& session, FrameIo& io, PacketSource& source, TunWriter tun,
                       const StopSignal& stop, const Clock& clock, std::size_t batch_packets,
                       TrafficAccount* account) {
  tunnel::EndLatch& end = session.end();
  StopSignal local;  // ends the other half when one half ends
  std::thread sender([&] {
    const SessionEnd e = run_sender(session, io, source, local, clock, batch_packets, account);
    if (e != SessionEnd::kStopped) end.set(e);
    local.stop();
  });

  tunnel::Receiver& rx = session.receiver();
  tunio::PacketBatch tun_batch = io.make_tun_batch(batch_packets);
  StallDetector stall(rx.params().liveness);
  (void)stall.stalled(boottime_now());
  while (!local.stopped()) {
    const auto due = rx.deadline();
    pollfd p[3] = {{io.fd(), POLLIN, 0}, {stop.fd(), POLLIN, 0}, {local.fd(), POLLIN, 0}};
    const int rc = ::poll(p, 3, due ? ms_until(*due, clock.now()) : 1000);
    if (rc < 0 && errno != EINTR) {
      end.set(SessionEnd::kSocketError);
      break;
    }
    if (p[1].revents != 0) {
      end.set(SessionEnd::kStopped);
      break;
    }
    if (p[2].revents != 0) break;
    if (stall.stalled(boottime_now())) {
      end.set(SessionEnd::kLiveness);
      break;
    }
    if (p[0].revents != 0) {
      bool over = false;
      std::uint64_t received = 0;  // IP bytes that passed the filter, for the account
      for (;;) {
        const ReceiveResult r = io.receive(rx, tun_batch, clock.now());
        const bool flush =
            r.status == Status::kFlush || (r.status != Status::kAgain && !tun_batch.empty());
        if (flush && account != nullptr) received += batch_bytes(tun_batch);
        if (flush && !flush_tun(tun, tun_batch, local, session.counters())) {
          end.set(SessionEnd::kTunError);
          over = true;
          break;
        }
        if (r.status == Status::kEnd) {
          end.set(r.end);
          over = true;
          break;
        }
        if (r.status == Status::kWouldBlock) break;
      }
      if (over) break;
      // Over the user's upload rate: stop reading for a while, so the peer's TCP backs off.
      pace_receive(account, received, stop, local);
    }
    const SessionEnd t = rx.on_timer(clock.now());
    if (t != SessionEnd::kStopped) {
      end.set(t);
      break;
    }
  }
  if (!tun_batch.empty()) flush_tun(tun, tun_batch, local, session.counters());
  local.stop();
  sender.join();
  return end.get();
}

}  // namespace qeli::engine
