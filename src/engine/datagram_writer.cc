#include "engine/datagram_writer.h"

#include <poll.h>

#include <cerrno>

namespace qeli::engine {

DatagramEnvelope& no_envelope() {
  static DatagramEnvelope none;
  return none;
}

DatagramWriter::DatagramWriter(wire::PacketCodec codec, PaddingPolicy padding, std::size_t mtu,
                               crypto::Rng& rng, SessionCounters& counters, DatagramEnvelope& env,
                               std::size_t scratch_packets)
    : codec_(std::move(codec)),
      padding_(padding),
      mtu_(mtu),
      rng_(rng),
      counters_(counters),
      env_(env),
      max_mtu_(mtu),
      // PacketBatch has no separate tail: room after a packet is part of max_packet.
      scratch_(scratch_packets, mtu + tailroom(padding, env), headroom(env)),
      queue_(1024),
      one_(env.headroom() + wire::max_record_size(wire::Framing::kTls) + env.tailroom()),
      last_write_(std::chrono::steady_clock::now()) {}

bool DatagramWriter::seal_slot(tunio::PacketBatch& b, std::size_t i, const transport::UdpAddr& peer,
                               DatagramQueue& queue, bool& exhausted) {
  const std::size_t env_head = env_.headroom();
  const std::size_t head = env_head + wire::kMaxSealHeadroom;
  const std::size_t data_len = b.packet(i).size();
  if (b.room_before(i) < head || b.room_after(i) < wire::seal_tailroom(0) + env_.tailroom()) {
    unsealable_.fetch_add(1, std::memory_order_relaxed);
    return false;  // a batch built without our headroom/tailroom: a caller bug, not input
  }
  std::size_t pad = padding_.pick(data_len, mtu_, rng_);
  pad = std::min(pad, b.room_after(i) - wire::seal_tailroom(0) - env_.tailroom());
  const std::size_t record_len = wire::record_size(wire::Framing::kTls, data_len, pad);
  b.prepend(i, head);
  b.set_length(i, env_head + record_len + env_.tailroom());
  const MutableByteSpan datagram = b.packet(i);
  auto sealed = codec_.seal_in_place(datagram.subspan(env_head, record_len), data_len, pad);
  if (!sealed.ok()) {
    exhausted = sealed.error() == wire::SealError::kCounterExhausted;
    if (!exhausted) unsealable_.fetch_add(1, std::memory_order_relaxed);
    return false;  // kTooLarge: a packet above the protocol's MTU is not sent
  }
  env_.wrap(datagram);
  queue.push({datagram.data(), datagram.size(), &peer});
  SessionCounters::add(counters_.tx_packets);
  SessionCounters::add(counters_.tx_bytes, data_len);
  return true;
}

SealStatus DatagramWriter::seal(tunio::PacketBatch& batch, const transport::UdpAddr& peer,
                                DatagramQueue& queue) {
  bool exhausted = false;
  for (std::size_t i = batch.cursor(); i < batch.size(); batch.set_cursor(++i)) {
    if (batch.meta(i).is_plain()) {
      if (queue.full()) return SealStatus::kMore;
      seal_slot(batch, i, peer, queue, exhausted);
      if (exhausted) return SealStatus::kCounterExhausted;
      continue;
    }
    // A super-packet (or a packet with a partial checksum): split it into the scratch
    // batch, a part at a time when the scratch or the queue fills up.
    for (;;) {
      if (queue.full() || scratch_.full()) return SealStatus::kMore;
      const std::size_t first = scratch_.size();
      const std::size_t room = queue.capacity() - queue.size();
      auto r = tunio::gso_split(batch.packet(i), batch.meta(i), scratch_, split_);
      if (!r.ok()) {
        SessionCounters::add(counters_.drop_bad_gso);
        split_ = {};
        break;
      }
      std::size_t emitted = r->emitted;
      bool done = r->done;
      if (emitted > room) {  // the queue is tighter than the scratch: re-split the rest later
        split_.next_segment -= emitted - room;
        scratch_.truncate(first + room);
        emitted = room;
        done = false;
      }
      for (std::size_t j = first; j < first + emitted; ++j) {
        seal_slot(scratch_, j, peer, queue, exhausted);
        if (exhausted) return SealStatus::kCounterExhausted;
      }
      if (done) {
        split_ = {};
        break;
      }
    }
  }
  return SealStatus::kDone;
}

WriteStatus DatagramWriter::flush(transport::UdpSocket& sock,
                                  std::span<const transport::OutDatagram> items,
                                  const StopSignal& stop) {
  while (!items.empty()) {
    const transport::UdpSendReport rep = sock.send(items);
    items = items.subspan(rep.sent);
    if (!rep.would_block) continue;
    pollfd p[2] = {{sock.fd(), POLLOUT, 0}, {stop.fd(), POLLIN, 0}};
    if (::poll(p, 2, -1) < 0 && errno != EINTR) return WriteStatus::kError;
    if (p[1].revents != 0) return WriteStatus::kStopped;
  }
  last_write_ = std::chrono::steady_clock::now();
  return WriteStatus::kOk;
}

WriteStatus DatagramWriter::send(transport::UdpSocket& sock, const transport::UdpAddr& peer,
                                 tunio::PacketBatch& batch, const StopSignal& stop) {
  batch.set_cursor(0);
  split_ = {};
  for (;;) {
    queue_.clear();
    recycle();
    const SealStatus st = seal(batch, peer, queue_);
    if (st == SealStatus::kCounterExhausted) return WriteStatus::kCounterExhausted;
    const WriteStatus w = flush(sock, queue_.items(), stop);
    if (w != WriteStatus::kOk || st == SealStatus::kDone) {
      recycle();
      return w;
    }
  }
}

WriteStatus DatagramWriter::send_one(transport::UdpSocket& sock, const transport::UdpAddr& peer,
                                     ByteSpan plaintext, std::size_t padding,
                                     const StopSignal& stop) {
  const std::size_t env_head = env_.headroom();
  const MutableByteSpan out(one_.data(), one_.size());
  auto sealed = codec_.seal(plaintext, padding, out.subspan(env_head, one_.size() - env_head));
  if (!sealed.ok()) {
    return sealed.error() == wire::SealError::kCounterExhausted ? WriteStatus::kCounterExhausted
                                                                : WriteStatus::kError;
  }
  const MutableByteSpan datagram = out.first(env_head + *sealed + env_.tailroom());
  env_.wrap(datagram);
  const transport::OutDatagram d{datagram.data(), datagram.size(), &peer};
  return flush(sock, {&d, 1}, stop);
}

}  // namespace qeli::engine
