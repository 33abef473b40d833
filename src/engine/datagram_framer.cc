#include "engine/datagram_framer.h"

#include <poll.h>

#include <cerrno>
#include <cstdlib>

#include "wire/udp_frag.h"

namespace qeli::engine {

using Status = ReceiveResult::Status;

DatagramEnvelope& no_envelope() {
  static DatagramEnvelope none;
  return none;
}

DatagramSource::DatagramSource(std::size_t max_batch) : slots_(max_batch), from_(max_batch) {}

tunio::PacketBatch DatagramSource::make_batch(std::size_t packets) {
  return tunio::PacketBatch(packets, transport::kGroReadSize);
}

Result<std::size_t, transport::UdpError> DatagramSource::receive(transport::UdpSocket& sock,
                                                                 tunio::PacketBatch& batch) {
  const std::size_t first = batch.size();
  const std::size_t n =
      std::min(batch.free_slots(), slots_.size() - std::min(first, slots_.size()));
  if (n == 0) return fail(transport::UdpError::kSlotsTooSmall);
  // Claim the free slots whole; the kernel (and the GRO split) write into them.
  for (std::size_t k = 0; k < n; ++k) {
    const MutableByteSpan s = batch.next_slot();
    batch.commit(s.size());
    slots_[k] = transport::RecvSlot::over(s.data(), s.size());
  }
  auto got = sock.recv({slots_.data(), n});
  if (!got.ok()) {
    batch.truncate(first);
    return got;
  }
  batch.truncate(first + *got);
  for (std::size_t k = 0; k < *got; ++k) {
    batch.set_length(first + k, slots_[k].len);
    from_[first + k] = slots_[k].from;
  }
  return *got;
}

std::size_t finish_batch(tunio::PacketBatch& batch, const std::vector<bool>& keep,
                         const tunio::GroOptions& gro, tunio::GroTable& table) {
  std::size_t w = 0;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    if (!keep[i]) continue;
    if (i != w) batch.swap(i, w);
    ++w;
  }
  batch.truncate(w);
  if ((gro.tcp || gro.udp) && !batch.empty()) tunio::gro_coalesce(batch, gro, table);
  batch.set_coalesced(true);
  std::size_t logical = 0;
  for (std::size_t i = 0; i < batch.size(); ++i) logical += batch.logical(i);
  return logical;
}

DatagramFramer::DatagramFramer(transport::UdpSocket& sock, const transport::SockAddr& peer,
                               DatagramEnvelope& send_env, DatagramEnvelope& recv_env,
                               std::mutex* send_mu, std::size_t max_batch)
    : sock_(sock),
      peer_(peer),
      send_env_(send_env),
      recv_env_(recv_env),
      send_mu_(send_mu),
      out_(tunnel::RecordQueue().capacity()),
      source_(max_batch),
      gro_table_(max_batch),
      keep_(max_batch) {
  gro_.udp = true;  // decrypted UDP datagrams coalesce too (LinuxTun splits if USO is off)
}

tunnel::CarrierRoom DatagramFramer::room() const {
  tunnel::CarrierRoom r;
  r.head = send_env_.headroom();
  r.tail = send_env_.tailroom();
  r.stream = false;
  return r;
}

DatagramOutcome DatagramFramer::open(tunnel::Receiver& rx, DatagramEnvelope& env,
                                     tunio::PacketBatch& batch, std::size_t i, Instant now) {
  const MutableByteSpan datagram = batch.packet(i);
  const auto record = env.unwrap(datagram);
  if (!record) {
    rx.count_drop(tunnel::RecordDrop::kEnvelope);
    return DatagramOutcome::kDropped;
  }
  // Records start 17 03 03; only a datagram that does not is looked at further.
  if (!record->empty() && (*record)[0] == wire::kFragMagic0) {
    const auto kind = wire::classify_datagram(*record);
    if (kind == wire::DatagramKind::kMtuProbe || kind == wire::DatagramKind::kMtuProbeAck) {
      batch.trim_front(i, static_cast<std::size_t>(record->data() - datagram.data()));
      batch.set_length(i, record->size());
      return DatagramOutcome::kProbe;
    }
  }
  const tunnel::Inbound in = rx.open(*record, now);
  switch (in.kind) {
    case tunnel::InboundKind::kPacket: break;
    case tunnel::InboundKind::kHeartbeat: return DatagramOutcome::kHeartbeat;
    case tunnel::InboundKind::kControl: return DatagramOutcome::kControl;
    case tunnel::InboundKind::kDrop: return DatagramOutcome::kDropped;
    case tunnel::InboundKind::kEnd: return DatagramOutcome::kEnd;
  }
  // One record per datagram: the packet lies inside the slot (never reassembled).
  batch.trim_front(i, static_cast<std::size_t>(in.packet.data() - datagram.data()));
  batch.set_length(i, in.packet.size());
  return DatagramOutcome::kPacket;
}

WriteStatus DatagramFramer::write(tunnel::RecordQueue& records, const StopSignal& stop) {
  const std::size_t head = send_env_.headroom();
  const std::size_t tail = send_env_.tailroom();
  const std::size_t n = records.size();
  for (std::size_t k = 0; k < n; ++k) {
    const MutableByteSpan r = records[k];
    const MutableByteSpan datagram(r.data() - head, head + r.size() + tail);
    send_env_.wrap(datagram);
    out_[k] = transport::OutDatagram{datagram.data(), datagram.size(), &peer_};
  }
  std::unique_lock<std::mutex> lock;
  if (send_mu_ != nullptr) lock = std::unique_lock<std::mutex>(*send_mu_);
  std::span<const transport::OutDatagram> items(out_.data(), n);
  while (!items.empty()) {
    const transport::UdpSendReport rep = sock_.send(items);
    items = items.subspan(rep.sent);
    if (!rep.would_block) continue;
    pollfd p[2] = {{sock_.fd(), POLLOUT, 0}, {stop.fd(), POLLIN, 0}};
    if (::poll(p, 2, -1) < 0 && errno != EINTR) return WriteStatus::kError;
    if (p[1].revents != 0) return WriteStatus::kStopped;
  }
  return WriteStatus::kOk;
}

tunio::PacketBatch DatagramFramer::make_tun_batch(std::size_t packets) const {
  return DatagramSource::make_batch(std::min(packets, keep_.size()));
}

ReceiveResult DatagramFramer::receive(tunnel::Receiver& rx, tunio::PacketBatch& batch,
                                      Instant now) {
  if (batch.capacity() > keep_.size()) std::abort();  // sizing bug: batch above max_batch
  batch.clear();
  auto got = source_.receive(sock_, batch);
  if (!got.ok()) {
    if (got.error() == transport::UdpError::kWouldBlock) return {Status::kWouldBlock};
    return {Status::kEnd, tunnel::SessionEnd::kSocketError};
  }
  ReceiveResult result{Status::kFlush};
  for (std::size_t i = 0; i < batch.size(); ++i) {
    keep_[i] = false;
    if (!(source_.from(i) == peer_)) {
      rx.count_drop(tunnel::RecordDrop::kUnknownSource);
      continue;
    }
    switch (open(rx, recv_env_, batch, i, now)) {
      case DatagramOutcome::kPacket: keep_[i] = true; break;
      case DatagramOutcome::kProbe: ++probes_; break;  // a client ignores stray acks
      case DatagramOutcome::kEnd: result = {Status::kEnd, tunnel::SessionEnd::kClosedByPeer}; break;
      default: break;
    }
  }
  finish_batch(batch, keep_, gro_, gro_table_);
  return result;
}

}  // namespace qeli::engine
