#include "engine/datagram_receiver.h"

#include <cstdlib>

#include "wire/udp_frag.h"

namespace qeli::engine {

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

DatagramReceiver::DatagramReceiver(wire::PacketCodec codec, SessionCounters& counters,
                                   DatagramEnvelope& env, ControlHandler on_control,
                                   std::size_t max_batch)
    : codec_(std::move(codec)),
      counters_(counters),
      env_(env),
      on_control_(std::move(on_control)),
      source_(max_batch),
      gro_table_(max_batch),
      keep_(max_batch),
      last_auth_(std::chrono::steady_clock::now()) {
  gro_.udp = true;  // decrypted UDP datagrams coalesce too (LinuxTun splits if USO is off)
}

DatagramOutcome DatagramReceiver::open(tunio::PacketBatch& batch, std::size_t i) {
  const MutableByteSpan datagram = batch.packet(i);
  const auto record = env_.unwrap(datagram);
  if (!record) {
    drops_.count(DatagramDrop::kEnvelope);
    return DatagramOutcome::kDropped;
  }
  // Records start 17 03 03; only a datagram that does not is looked at further.
  if (!record->empty() && (*record)[0] == wire::kFragMagic0) {
    const auto kind = wire::classify_datagram(*record);
    if (kind == wire::DatagramKind::kMtuProbe || kind == wire::DatagramKind::kMtuProbeAck) {
      ++probes_;
      batch.trim_front(i, static_cast<std::size_t>(record->data() - datagram.data()));
      batch.set_length(i, record->size());
      return DatagramOutcome::kProbe;
    }
  }
  auto opened = codec_.open_in_place(*record);
  if (!opened.ok()) {
    drops_.count(drop_reason(opened.error()));
    if (opened.error() == wire::OpenError::kReplay) SessionCounters::add(counters_.drop_replay);
    return DatagramOutcome::kDropped;
  }
  last_auth_ = std::chrono::steady_clock::now();
  const MutableByteSpan data = opened->data;
  switch (wire::classify_plaintext(data)) {
    case wire::PlaintextKind::kHeartbeat:
      SessionCounters::add(counters_.heartbeats_rx);
      return DatagramOutcome::kHeartbeat;
    case wire::PlaintextKind::kControl: {
      SessionCounters::add(counters_.control_rx);
      auto frame = wire::parse_control_frame(data);
      if (frame.ok() && on_control_) on_control_(*frame);
      return DatagramOutcome::kControl;
    }
    case wire::PlaintextKind::kPacket: break;
  }
  if (data.size() < 20 || (data[0] >> 4) != 4) {
    drops_.count(DatagramDrop::kNotIpv4);
    counters_.count_not_ipv4(data.data(), data.size());
    return DatagramOutcome::kDropped;
  }
  batch.trim_front(i, static_cast<std::size_t>(data.data() - datagram.data()));
  batch.set_length(i, data.size());
  SessionCounters::add(counters_.rx_packets);
  SessionCounters::add(counters_.rx_bytes, data.size());
  return DatagramOutcome::kPacket;
}

Result<ReceiveReport, transport::UdpError> DatagramReceiver::receive(transport::UdpSocket& sock,
                                                                     const transport::UdpAddr& peer,
                                                                     tunio::PacketBatch& batch) {
  if (batch.capacity() > keep_.size()) std::abort();  // sizing bug: batch above max_batch
  const std::size_t first = batch.size();
  auto got = source_.receive(sock, batch);
  if (!got.ok()) return fail(got.error());
  ReceiveReport r;
  r.datagrams = *got;
  for (std::size_t i = 0; i < first; ++i) keep_[i] = true;
  for (std::size_t i = first; i < batch.size(); ++i) {
    if (!(source_.from(i) == peer)) {
      drops_.count(DatagramDrop::kUnknownSource);
      keep_[i] = false;
    } else {
      keep_[i] = open(batch, i) == DatagramOutcome::kPacket;
    }
    if (keep_[i]) {
      ++r.packets;
    } else {
      ++r.dropped;
    }
  }
  finish_batch(batch, keep_, gro_, gro_table_);
  return r;
}

}  // namespace qeli::engine
