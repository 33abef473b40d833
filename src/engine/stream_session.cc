#include "engine/stream_session.h"

#include <poll.h>

#include <atomic>
#include <cerrno>
#include <thread>

#include "engine/record_receiver.h"
#include "engine/record_writer.h"
#include "engine/traffic_pacing.h"
#include "wire/gso_chunk.h"

namespace qeli::engine {
namespace {

using Clock = std::chrono::steady_clock;
// How long a quota farewell may wait for room in a full socket.
constexpr int kFarewellWaitMs = 2000;

// Returns true when it ended on the stop signal between records (a farewell record may
// follow), false when a write failed or stopped half-way.
bool send_loop(RecordWriter& writer, PacketSource& source, const StreamSessionConfig& cfg,
               const StopSignal& stop, EndReason& end, crypto::Rng& rng,
               SessionCounters& counters) {
  for (const auto& frame : cfg.initial_frames) {
    const auto st = writer.write_one(frame, 0, stop);
    if (st != WriteStatus::kOk) {
      end.set(from_write(st));
      return false;
    }
  }
  tunio::PacketBatch batch =
      source.make_batch(cfg.batch_packets, writer.headroom(), writer.tailroom(cfg.padding));
  const auto& hb = cfg.heartbeat;
  auto next_heartbeat = [&] {
    return writer.last_write() + std::chrono::milliseconds(hb.interval_ms) +
           std::chrono::milliseconds(hb.jitter_ms > 0 ? rng.uniform(0, hb.jitter_ms) : 0);
  };
  Instant hb_due = next_heartbeat();
  while (!stop.stopped()) {
    pollfd p[2] = {{source.fd(), POLLIN, 0}, {stop.fd(), POLLIN, 0}};
    const int timeout = hb.enabled ? ms_until(hb_due) : 1000;
    const int rc = ::poll(p, 2, timeout);
    if (rc < 0 && errno != EINTR) {
      end.set(SessionEnd::kTunError);
      return false;
    }
    if (p[1].revents != 0) return true;
    if (p[0].revents != 0) {
      batch.clear();
      if (!source.fill(batch)) {
        end.set(SessionEnd::kTunError);
        return false;
      }
      if (!batch.empty()) {
        writer.set_peer_gso(cfg.send_gso != nullptr &&
                            cfg.send_gso->load(std::memory_order_relaxed));
        const std::uint64_t bytes = cfg.account != nullptr ? batch_bytes(batch) : 0;
        const auto st = writer.seal_and_write(batch, stop);
        if (st != WriteStatus::kOk) {
          end.set(from_write(st));
          return false;
        }
        hb_due = next_heartbeat();
        if (!pace_send(cfg.account, bytes, stop)) {
          end.set(SessionEnd::kQuotaExhausted);
          return true;  // at a record boundary: the farewell says why
        }
      }
    }
    if (hb.enabled && Clock::now() >= hb_due) {
      // An empty record with 16..48 random padding bytes (0.7.16 heartbeat).
      const std::size_t pad = rng.uniform(hb.data_size_bytes, hb.data_size_bytes + 32);
      const auto st = writer.write_one({}, pad, stop);
      if (st != WriteStatus::kOk) {
        end.set(from_write(st));
        return false;
      }
      SessionCounters::add(counters.heartbeats_tx);
      hb_due = next_heartbeat();
    }
  }
  return true;
}

}  // namespace

int ms_until(Instant t) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(t - Clock::now());
  return left.count() <= 0 ? 0 : static_cast<int>(left.count());
}

void EndReason::set(SessionEnd e) {
  int expected = -1;
  value_.compare_exchange_strong(expected, static_cast<int>(e));
}

SessionEnd EndReason::get() const {
  const int v = value_.load();
  return v < 0 ? SessionEnd::kStopped : static_cast<SessionEnd>(v);
}

SessionEnd from_write(WriteStatus s) {
  switch (s) {
    case WriteStatus::kOk:
    case WriteStatus::kStopped: return SessionEnd::kStopped;
    case WriteStatus::kClosed: return SessionEnd::kPeerClosed;
    case WriteStatus::kCounterExhausted: return SessionEnd::kCounterExhausted;
    case WriteStatus::kError: return SessionEnd::kSocketError;
  }
  return SessionEnd::kSocketError;
}

const char* to_string(SessionEnd e) {
  switch (e) {
    case SessionEnd::kStopped: return "stopped";
    case SessionEnd::kPeerClosed: return "peer closed the connection";
    case SessionEnd::kSocketError: return "socket error";
    case SessionEnd::kBadRecord: return "a record failed to authenticate";
    case SessionEnd::kRecordFraming: return "malformed record framing";
    case SessionEnd::kLiveness: return "liveness deadline passed";
    case SessionEnd::kTunError: return "TUN error";
    case SessionEnd::kCounterExhausted: return "record counter exhausted";
    case SessionEnd::kIdle: return "idle timeout";
    case SessionEnd::kClosedByPeer: return "the peer ended the session";
    case SessionEnd::kQuotaExhausted: return "data quota used up";
  }
  return "?";
}

bool flush_tun(TunWriter& tw, tunio::PacketBatch& batch, const StopSignal& stop,
               SessionCounters& counters, TunBatchKind kind) {
  const bool opened = kind == TunBatchKind::kOpenedDatagrams;
  batch.set_cursor(0);
  batch.set_coalesced(opened);
  for (;;) {
    std::unique_lock<std::mutex> lock;
    if (tw.mu != nullptr) lock = std::unique_lock<std::mutex>(*tw.mu);
    auto r = tw.tun->write_batch(tw.queue, batch);
    if (lock.owns_lock()) lock.unlock();
    if (!r.ok()) return false;
    if (!opened) SessionCounters::add(counters.rx_packets, r->logical_written);
    SessionCounters::add(counters.drop_tun_write, r->logical_dropped);
    if (r->complete()) break;
    pollfd p[2] = {{tw.tun->fd(tw.queue), POLLOUT, 0}, {stop.fd(), POLLIN, 0}};
    ::poll(p, 2, 100);
    if (p[1].revents != 0) break;
  }
  batch.clear();
  return true;
}

tunio::PacketBatch PacketSource::make_batch(std::size_t packets, std::size_t headroom,
                                            std::size_t tailroom) const {
  // Slots hold a whole super-packet (64 KiB); pages are touched only as they are used.
  return tunio::PacketBatch(packets, wire::kMaxSuperPacket, headroom, tailroom);
}

bool TunQueueSource::fill(tunio::PacketBatch& batch) {
  auto r = tun_.read_batch(queue_, batch);
  if (!r.ok()) return r.error() == tunio::TunError::would_block;
  // Keep IPv4 only, compacting in place (slots are swapped, not copied).
  std::size_t keep = 0;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    const auto pkt = batch.packet(i);
    if (!pkt.empty() && (pkt[0] >> 4) == 4) {
      if (keep != i) batch.swap(keep, i);
      ++keep;
    } else {
      counters_.count_not_ipv4(pkt.data(), pkt.size());
    }
  }
  if (keep != batch.size()) batch.truncate(keep);
  return true;
}

SessionEnd run_stream_session(transport::Stream& stream, wire::PacketCodec send,
                              wire::PacketCodec recv, ByteSpan leftover, PacketSource& source,
                              TunWriter tun, const StreamSessionConfig& config,
                              const StopSignal& stop, SessionCounters& counters, crypto::Rng& rng) {
  StopSignal local;  // ends the other half when one half ends
  EndReason end;
  RecordWriter writer(stream, std::move(send), config.padding, config.mtu, rng, counters);

  // A stop from outside must reach the send thread too.
  // The send loop watches `local`; the receive loop forwards the outer stop into it.
  std::thread sender([&] {
    const bool at_boundary = send_loop(writer, source, config, local, end, rng, counters);
    local.stop();
    if (at_boundary && config.farewell) {
      // The receive loop recorded why before it stopped us. `local` is already stopped,
      // so the write never waits for room.
      const Bytes frame = config.farewell(end.get());
      if (!frame.empty() && end.get() == SessionEnd::kQuotaExhausted) {
        // The quota ends a session mid-download, with the socket full: the client must
        // still learn why (else it reconnects into refusals), so wait for room — at most
        // kFarewellWait, or until the outer stop.
        StopSignal deadline;
        std::thread timer([&] {
          pollfd p[2] = {{deadline.fd(), POLLIN, 0}, {stop.fd(), POLLIN, 0}};
          (void)::poll(p, 2, kFarewellWaitMs);
          deadline.stop();
        });
        (void)writer.write_one(frame, 0, deadline);
        deadline.stop();
        timer.join();
      } else if (!frame.empty()) {
        (void)writer.write_one(frame, 0, local);
      }
    }
  });

  auto on_control = [&](const wire::ControlFrame& f) {
    if (config.end_on_close_frame && f.type == wire::kCtrlSessionClose) {
      end.set(SessionEnd::kClosedByPeer);
      local.stop();
    }
    if (config.on_control) config.on_control(f);
  };
  RecordReceiver receiver(std::move(recv), leftover, counters, on_control);
  receiver.accept_gso(config.gso_receive);
  tunio::PacketBatch tun_batch(config.batch_packets, 65535);
  std::size_t accepted_in_batch = 0;
  std::uint64_t idle_packets = 0;
  Instant idle_since = Clock::now();
  while (!local.stopped()) {
    pollfd p[3] = {{stream.fd(), POLLIN, 0}, {stop.fd(), POLLIN, 0}, {local.fd(), POLLIN, 0}};
    const int rc = ::poll(p, 3, 1000);
    if (rc < 0 && errno != EINTR) {
      end.set(SessionEnd::kSocketError);
      break;
    }
    if (p[1].revents != 0) {
      end.set(SessionEnd::kStopped);
      break;
    }
    if (p[2].revents != 0) break;
    if (p[0].revents != 0) {
      ReceiveStatus st;
      std::uint64_t received = 0;  // IP bytes that passed the filter, for the account
      do {
        st = receiver.receive(stream, tun_batch);
        // Apply the inbound filter to what arrived since the last check, and count the
        // bytes that pass (rx_packets is counted by flush_tun, after coalescing).
        std::size_t keep = tun_batch.size();
        if (config.inbound_filter) {
          keep = accepted_in_batch;
          for (std::size_t i = accepted_in_batch; i < tun_batch.size(); ++i) {
            if (config.inbound_filter(tun_batch.packet(i))) {
              if (keep != i) tun_batch.swap(keep, i);
              ++keep;
            }
          }
          tun_batch.truncate(keep);
        }
        for (std::size_t i = accepted_in_batch; i < keep; ++i) {
          SessionCounters::add(counters.rx_bytes, tun_batch.packet(i).size());
          received += tun_batch.packet(i).size();
        }
        accepted_in_batch = keep;
        if (st == ReceiveStatus::kBatchFull || (tun_batch.size() > 0 && st != ReceiveStatus::kOk)) {
          if (!flush_tun(tun, tun_batch, local, counters)) {
            end.set(SessionEnd::kTunError);
            st = ReceiveStatus::kError;
          }
          accepted_in_batch = 0;
        }
      } while (st == ReceiveStatus::kOk || st == ReceiveStatus::kBatchFull);
      // Over the user's upload rate: stop reading for a while, so the client's TCP backs off.
      pace_receive(config.account, received, stop, local);
      if (st != ReceiveStatus::kWouldBlock) {
        switch (st) {
          case ReceiveStatus::kClosed: end.set(SessionEnd::kPeerClosed); break;
          case ReceiveStatus::kBadRecord: end.set(SessionEnd::kBadRecord); break;
          case ReceiveStatus::kDeframe: end.set(SessionEnd::kRecordFraming); break;
          default: end.set(SessionEnd::kSocketError); break;
        }
        break;
      }
    }
    if (config.idle_timeout_ms > 0) {
      // Activity = IP packets either way (counters are written by both threads).
      const std::uint64_t packets = counters.rx_packets.load(std::memory_order_relaxed) +
                                    counters.tx_packets.load(std::memory_order_relaxed);
      if (packets != idle_packets) {
        idle_packets = packets;
        idle_since = Clock::now();
      } else if (Clock::now() - idle_since > std::chrono::milliseconds(config.idle_timeout_ms)) {
        end.set(SessionEnd::kIdle);
        break;
      }
    }
    if (config.liveness_ms > 0 && Clock::now() - receiver.last_authenticated() >
                                      std::chrono::milliseconds(config.liveness_ms)) {
      end.set(SessionEnd::kLiveness);
      break;
    }
  }
  if (!tun_batch.empty()) flush_tun(tun, tun_batch, local, counters);
  local.stop();
  sender.join();
  return end.get();
}

}  // namespace qeli::engine
