#include "tunnel/sealer.h"

#include <algorithm>
#include <cstring>

#include "tunnel/gso_convert.h"
#include "wire/gso_chunk.h"

namespace qeli::tunnel {

std::size_t CarrierRoom::max_record_data() const {
  const std::size_t framing = wire::record_size(wire::Framing::kTls, 0, 0);
  if (max_record == kUnlimitedRecord) return wire::kMaxTunnelMtu;
  return max_record > framing ? std::min(wire::kMaxTunnelMtu, max_record - framing) : 0;
}

Sealer::Sealer(wire::PacketCodec codec, const PaddingPolicy& padding, std::size_t mtu,
               CarrierRoom room, crypto::Rng& rng, SessionCounters& counters,
               std::size_t scratch_packets)
    : codec_(std::move(codec)),
      padding_(padding),
      mtu_(mtu),
      max_mtu_(mtu),
      room_(room),
      rng_(rng),
      counters_(counters),
      seal_head_(wire::seal_headroom(codec_.framing())),
      max_data_(room.max_record_data()),
      max_gso_chunk_(max_data_ > wire::kGsoChunkPrefix
                         ? std::min(wire::kMaxGsoChunk, max_data_ - wire::kGsoChunkPrefix)
                         : 0),
      // A stream splits super-packets only for a peer without the GSO extension, to the
      // segment size the kernel chose (up to what one record holds); a datagram carrier
      // always splits, to the tunnel MTU.
      scratch_(scratch_packets, (room.stream ? max_data_ : mtu) + room.tailroom(padding),
               room.headroom()),
      gso_buf_(room.stream ? std::make_unique_for_overwrite<std::uint8_t[]>(kGsoBufBytes)
                           : nullptr),
      one_(room.head + wire::max_record_size(wire::Framing::kTls) + room.tail) {}

bool Sealer::seal_slot(tunio::PacketBatch& b, std::size_t i, RecordQueue& out) {
  const std::size_t data_len = b.packet(i).size();
  const std::size_t fixed_tail = wire::seal_tailroom(0) + room_.tail;
  if (data_len > max_data_ || b.room_after(i) < fixed_tail ||
      b.room_before(i) < seal_head_ + room_.head) {
    // Above what one record of this carrier holds (an MTU above the carrier's limit), or
    // a batch built without our room (a caller bug): never sent, always counted.
    counters_.add(SessionCounter::kDropTooBig);
    return true;
  }
  std::size_t pad = padding_.pick(data_len, std::min(mtu_, max_data_), rng_);
  pad = std::min(pad, b.room_after(i) - fixed_tail);
  b.prepend(i, seal_head_);
  b.set_length(i, seal_head_ + data_len + wire::seal_tailroom(pad));
  auto rec = codec_.seal_in_place(b.packet(i), data_len, pad);
  if (!rec.ok()) {
    if (rec.error() == wire::SealError::kCounterExhausted) return false;
    counters_.add(SessionCounter::kDropTooBig);
    return true;
  }
  out.push(b.packet(i).first(*rec));
  counters_.add(SessionCounter::kTxPackets);
  counters_.add(SessionCounter::kTxBytes, data_len);
  return true;
}

bool Sealer::seal_super_packet(ByteSpan packet, const tunio::GsoMetadata& meta, RecordQueue& out,
                               bool& exhausted) {
  const std::size_t chunks = (packet.size() + max_gso_chunk_ - 1) / max_gso_chunk_;
  // Each record sits in its own [carrier head | record | carrier tail] room.
  const std::size_t per_record =
      room_.head + seal_head_ + wire::kGsoChunkPrefix + wire::seal_tailroom(0) + room_.tail;
  const std::size_t need = packet.size() + chunks * per_record;
  if (gso_used_ + need > kGsoBufBytes || out.room() < chunks) return false;
  wire::GsoChunkHeader h = to_chunk_header(meta, packet.size());
  for (std::size_t off = 0; off < packet.size(); off += max_gso_chunk_) {
    const std::size_t n = std::min(max_gso_chunk_, packet.size() - off);
    h.offset = static_cast<std::uint16_t>(off);
    std::uint8_t* rec = gso_buf_.get() + gso_used_ + room_.head;
    write_gso_chunk_prefix(h, rec + seal_head_);
    std::memcpy(rec + seal_head_ + wire::kGsoChunkPrefix, packet.data() + off, n);
    const std::size_t data_len = wire::kGsoChunkPrefix + n;
    auto sealed =
        codec_.seal_in_place({rec, seal_head_ + data_len + wire::seal_tailroom(0)}, data_len, 0);
    if (!sealed.ok()) {
      exhausted = sealed.error() == wire::SealError::kCounterExhausted;
      return false;
    }
    out.push({rec, *sealed});
    gso_used_ += room_.head + *sealed + room_.tail;
  }
  counters_.add(SessionCounter::kTxPackets);
  counters_.add(SessionCounter::kTxBytes, packet.size());
  return true;
}

SealStatus Sealer::seal_split(tunio::PacketBatch& batch, std::size_t i, RecordQueue& out,
                              bool& done) {
  for (;;) {
    if (out.full() || scratch_.full()) return SealStatus::kMore;
    const std::size_t first = scratch_.size();
    const std::size_t room = out.room();
    auto r = tunio::gso_split(batch.packet(i), batch.meta(i), scratch_, split_);
    if (!r.ok()) {
      counters_.add(SessionCounter::kDropBadGso);
      split_ = {};
      done = true;
      return SealStatus::kDone;
    }
    std::size_t emitted = r->emitted;
    bool last = r->done;
    if (emitted > room) {  // the queue is tighter than the scratch: re-split the rest later
      split_.next_segment -= emitted - room;
      scratch_.truncate(first + room);
      emitted = room;
      last = false;
    }
    for (std::size_t j = first; j < first + emitted; ++j) {
      if (!seal_slot(scratch_, j, out)) return SealStatus::kCounterExhausted;
    }
    if (last) {
      split_ = {};
      done = true;
      return SealStatus::kDone;
    }
  }
}

SealStatus Sealer::seal(tunio::PacketBatch& batch, RecordQueue& out) {
  for (std::size_t i = batch.cursor(); i < batch.size(); batch.set_cursor(++i)) {
    if (batch.meta(i).is_plain()) {
      if (out.full()) return SealStatus::kMore;
      if (!seal_slot(batch, i, out)) return SealStatus::kCounterExhausted;
      continue;
    }
    if (peer_gso_) {
      if (max_gso_chunk_ == 0) {  // a carrier too small for any chunk: cannot be carried
        counters_.add(SessionCounter::kDropTooBig);
        continue;
      }
      bool exhausted = false;
      if (seal_super_packet(batch.packet(i), batch.meta(i), out, exhausted)) continue;
      if (exhausted) return SealStatus::kCounterExhausted;
      if (gso_used_ == 0 && out.empty()) {  // larger than an empty buffer: never fits
        counters_.add(SessionCounter::kDropBadGso);
        continue;
      }
      return SealStatus::kMore;
    }
    // A super-packet (or a packet with a partial checksum) for a peer that takes only
    // MTU-sized packets: split it, a part at a time when the scratch or the queue fills.
    bool done = false;
    const SealStatus st = seal_split(batch, i, out, done);
    if (!done) return st;
  }
  return SealStatus::kDone;
}

void Sealer::recycle() {
  scratch_.clear();
  gso_used_ = 0;
}

Result<MutableByteSpan, wire::SealError> Sealer::seal_one(ByteSpan plaintext, std::size_t padding) {
  const MutableByteSpan room(one_.data() + room_.head, one_.size() - room_.head - room_.tail);
  auto sealed = codec_.seal(
      plaintext, std::min(padding, max_data_ - std::min(max_data_, plaintext.size())), room);
  if (!sealed.ok()) return fail(sealed.error());
  return room.first(*sealed);
}

}  // namespace qeli::tunnel
