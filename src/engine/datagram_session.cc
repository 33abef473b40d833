#include "engine/datagram_session.h"
#include "engine/stall_detector.h"

#include <poll.h>

#include <cerrno>
#include <thread>

#include "engine/traffic_pacing.h"

namespace qeli::engine {
namespace {

using Clock = std::chrono::steady_clock;

// Serialises the senders of a shared socket; a no-op for a socket with one sender.
std::unique_lock<std::mutex> lock_of(std::mutex* mu) {
  return mu != nullptr ? std::unique_lock<std::mutex>(*mu) : std::unique_lock<std::mutex>();
}

}  // namespace

SessionTimers::SessionTimers(const DatagramSessionConfig& cfg)
    : liveness_ms_(cfg.liveness_ms), idle_ms_(cfg.idle_timeout_ms), since_(Clock::now()) {}

SessionEnd SessionTimers::check(const SessionCounters& counters, Instant last_authenticated,
                                Instant now) {
  if (idle_ms_ > 0) {
    // Activity = IP packets either way (counters are written by both halves).
    const std::uint64_t packets = counters.rx_packets.load(std::memory_order_relaxed) +
                                  counters.tx_packets.load(std::memory_order_relaxed);
    if (packets != packets_) {
      packets_ = packets;
      since_ = now;
    } else if (now - since_ > std::chrono::milliseconds(idle_ms_)) {
      return SessionEnd::kIdle;
    }
  }
  if (liveness_ms_ > 0 && now - last_authenticated > std::chrono::milliseconds(liveness_ms_)) {
    return SessionEnd::kLiveness;
  }
  return SessionEnd::kStopped;
}

tunio::PacketBatch make_send_batch(std::size_t packets, std::size_t max_packet,
                                   const PaddingPolicy& padding, const DatagramEnvelope& env) {
  // The writer's tailroom is part of a slot's max_packet (DatagramWriter::tailroom).
  const std::size_t tail = DatagramWriter::tailroom(padding, env);
  return tunio::PacketBatch(packets, max_packet + tail, DatagramWriter::headroom(env));
}

SessionEnd run_datagram_sender(transport::UdpSocket& sock, std::mutex* send_mu,
                               const transport::UdpAddr& peer, DatagramWriter& writer,
                               PacketSource& source, tunio::PacketBatch& batch,
                               const DatagramSessionConfig& cfg, const StopSignal& stop,
                               SessionCounters& counters, crypto::Rng& rng) {
  for (const auto& frame : cfg.initial_frames) {
    auto lock = lock_of(send_mu);
    const auto st = writer.send_one(sock, peer, frame, 0, stop);
    if (st != WriteStatus::kOk) return from_write(st);
  }
  const auto& hb = cfg.heartbeat;
  auto next_heartbeat = [&] {
    return writer.last_write() + std::chrono::milliseconds(hb.interval_ms) +
           std::chrono::milliseconds(hb.jitter_ms > 0 ? rng.uniform(0, hb.jitter_ms) : 0);
  };
  Instant hb_due = next_heartbeat();
  SessionEnd ended = SessionEnd::kStopped;
  while (!stop.stopped()) {
    pollfd p[2] = {{source.fd(), POLLIN, 0}, {stop.fd(), POLLIN, 0}};
    const int rc = ::poll(p, 2, hb.enabled ? ms_until(hb_due) : 1000);
    if (rc < 0 && errno != EINTR) return SessionEnd::kTunError;
    if (p[1].revents != 0) break;
    if (p[0].revents != 0) {
      batch.clear();
      if (!source.fill(batch)) return SessionEnd::kTunError;
      if (!batch.empty()) {
        if (cfg.peer_mtu != nullptr) {
          if (const auto m = cfg.peer_mtu->load(std::memory_order_relaxed); m != 0) {
            writer.set_mtu(m);  // only ever lowers it
          }
        }
        const std::uint64_t bytes = cfg.account != nullptr ? batch_bytes(batch) : 0;
        {
          auto lock = lock_of(send_mu);
          const auto st = writer.send(sock, peer, batch, stop);
          if (st != WriteStatus::kOk) return from_write(st);
        }
        hb_due = next_heartbeat();
        if (!pace_send(cfg.account, bytes, stop)) {
          ended = SessionEnd::kQuotaExhausted;
          break;
        }
      }
    }
    if (hb.enabled && Clock::now() >= hb_due) {
      // An empty record with 16..48 random padding bytes (0.7.16 heartbeat).
      const std::size_t pad = rng.uniform(hb.data_size_bytes, hb.data_size_bytes + 32);
      auto lock = lock_of(send_mu);
      const auto st = writer.send_one(sock, peer, {}, pad, stop);
      if (st != WriteStatus::kOk) return from_write(st);
      SessionCounters::add(counters.heartbeats_tx);
      hb_due = next_heartbeat();
    }
  }
  // Stopped between datagrams: say goodbye if the session wants to (each datagram stands
  // alone, so there is no boundary to respect; `stop` has fired, so no send waits).
  if (cfg.farewell) {
    const Bytes frame = cfg.farewell(ended);
    for (int i = 0; !frame.empty() && i < kFarewellCopies; ++i) {
      auto lock = lock_of(send_mu);
      if (writer.send_one(sock, peer, frame, 0, stop) != WriteStatus::kOk) break;
    }
  }
  return ended;
}

SessionEnd run_datagram_session(transport::UdpSocket& sock, const transport::UdpAddr& peer,
                                DatagramWriter& writer, DatagramReceiver& receiver,
                                PacketSource& source, tunio::PacketBatch& send_batch, TunWriter tun,
                                const DatagramSessionConfig& cfg, const StopSignal& stop,
                                SessionCounters& counters, crypto::Rng& rng) {
  StopSignal local;  // ends the other half when one half ends
  EndReason end;
  std::thread sender([&] {
    end.set(run_datagram_sender(sock, nullptr, peer, writer, source, send_batch, cfg, local,
                                counters, rng));
    local.stop();
  });

  // A session-close frame from the server ends the session now (our extension).
  // The receiver outlives this call: its own handler is put back before returning.
  const DatagramReceiver::ControlHandler saved = receiver.on_control();
  if (cfg.end_on_close_frame) {
    receiver.set_on_control([&](const wire::ControlFrame& f) {
      if (f.type == wire::kCtrlSessionClose) {
        end.set(SessionEnd::kClosedByPeer);
        local.stop();
      }
      if (saved) saved(f);
    });
  }
  tunio::PacketBatch tun_batch = DatagramSource::make_batch(cfg.batch_packets);
  SessionTimers timers(cfg);
  // Resumed after a suspend or SIGSTOP longer than the liveness deadline: the server has
  // given up on this session; end it now (engine/stall_detector.h).
  StallDetector stall(std::chrono::milliseconds(cfg.liveness_ms));
  (void)stall.stalled(boottime_now());
  while (!local.stopped()) {
    pollfd p[3] = {{sock.fd(), POLLIN, 0}, {stop.fd(), POLLIN, 0}, {local.fd(), POLLIN, 0}};
    const int rc = ::poll(p, 3, 1000);
    if (rc < 0 && errno != EINTR) {
      end.set(SessionEnd::kSocketError);
      break;
    }
    if (stall.stalled(boottime_now())) {
      end.set(SessionEnd::kLiveness);
      break;
    }
    if (p[1].revents != 0) {
      end.set(SessionEnd::kStopped);
      break;
    }
    if (p[2].revents != 0) break;
    if (p[0].revents != 0) {
      for (;;) {
        tun_batch.clear();
        auto r = receiver.receive(sock, peer, tun_batch);
        if (!r.ok()) {
          if (r.error() != transport::UdpError::kWouldBlock) end.set(SessionEnd::kSocketError);
          break;
        }
        if (cfg.inbound_filter) {
          std::size_t keep = 0;
          for (std::size_t i = 0; i < tun_batch.size(); ++i) {
            if (cfg.inbound_filter(tun_batch.packet(i))) {
              if (keep != i) tun_batch.swap(keep, i);
              ++keep;
            }
          }
          tun_batch.truncate(keep);
        }
        if (!tun_batch.empty() &&
            !flush_tun(tun, tun_batch, local, counters, TunBatchKind::kOpenedDatagrams)) {
          end.set(SessionEnd::kTunError);
          break;
        }
      }
      if (end.get() != SessionEnd::kStopped) break;
    }
    const SessionEnd t = timers.check(counters, receiver.last_authenticated(), Clock::now());
    if (t != SessionEnd::kStopped) {
      end.set(t);
      break;
    }
  }
  local.stop();
  sender.join();
  receiver.set_on_control(saved);
  return end.get();
}

}  // namespace qeli::engine
