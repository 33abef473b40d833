#include "engine/record_writer.h"

#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "engine/gso_convert.h"
#include "tunio/offload_split.h"

namespace qeli::engine {
namespace {

// Largest data + padding of one record that still fits a chunk of `max_chunk` bytes.
std::size_t max_record_data(std::size_t max_chunk) {
  const std::size_t framing = wire::record_size(wire::Framing::kTls, 0, 0);
  if (max_chunk == transport::kUnlimitedChunk) return wire::kMaxTunnelMtu;
  return max_chunk > framing ? std::min(wire::kMaxTunnelMtu, max_chunk - framing) : 0;
}

}  // namespace

const char* to_string(WriteStatus s) {
  switch (s) {
    case WriteStatus::kOk: return "ok";
    case WriteStatus::kClosed: return "peer closed the connection";
    case WriteStatus::kStopped: return "stopped";
    case WriteStatus::kError: return "socket error";
    case WriteStatus::kCounterExhausted: return "record counter exhausted";
  }
  return "?";
}

RecordWriter::RecordWriter(transport::Stream& stream, wire::PacketCodec codec,
                           PaddingPolicy padding, std::size_t mtu, crypto::Rng& rng,
                           SessionCounters& counters)
    : stream_(stream),
      overhead_(stream.overhead()),
      codec_(std::move(codec)),
      padding_(padding),
      mtu_(mtu),
      rng_(rng),
      counters_(counters),
      max_data_(max_record_data(overhead_.max_chunk)),
      max_gso_chunk_(max_data_ > wire::kGsoChunkPrefix
                         ? std::min(wire::kMaxGsoChunk, max_data_ - wire::kGsoChunkPrefix)
                         : 0),
      scratch_(overhead_.head + wire::max_record_size(wire::Framing::kTls) + overhead_.tail),
      gso_buf_(std::make_unique_for_overwrite<std::uint8_t[]>(kGsoBufBytes)),
      // 64 KiB / the smallest IPv4 segment (576 − 40 bytes) < 128 segments.
      segments_(128, wire::kMaxTunnelMtu, headroom(overhead_), tailroom(padding, overhead_)),
      last_write_(std::chrono::steady_clock::now()) {
  chunks_.reserve(1024);
}

WriteStatus RecordWriter::seal_and_write(tunio::PacketBatch& batch, const StopSignal& stop) {
  chunks_.clear();
  gso_used_ = 0;
  std::uint64_t bytes = 0;
  std::uint64_t records = 0;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    const std::size_t data_len = batch.packet(i).size();
    if (!batch.meta(i).is_plain() && !peer_gso_) {
      const WriteStatus st = seal_split(batch.packet(i), batch.meta(i), stop, records);
      if (st != WriteStatus::kOk) return st;
      bytes += data_len;
      continue;
    }
    if (!batch.meta(i).is_plain()) {
      WriteStatus st = WriteStatus::kOk;
      if (!seal_super_packet(batch.packet(i), batch.meta(i), st)) {
        if (st != WriteStatus::kOk) return st;
        // Buffer full: send what is sealed so far, then retry this packet.
        st = write_chunks(stop);
        if (st != WriteStatus::kOk) return st;
        gso_used_ = 0;
        if (!seal_super_packet(batch.packet(i), batch.meta(i), st)) return WriteStatus::kError;
      }
      bytes += data_len;
      ++records;
      continue;
    }
    bool sealed = false;
    const WriteStatus st = seal_slot(batch, i, sealed);
    if (st != WriteStatus::kOk) return st;
    if (!sealed) continue;
    bytes += data_len;
    ++records;
  }
  if (chunks_.empty()) return WriteStatus::kOk;
  const WriteStatus st = write_chunks(stop);
  if (st == WriteStatus::kOk) {
    SessionCounters::add(counters_.tx_packets, records);
    SessionCounters::add(counters_.tx_bytes, bytes);
  }
  return st;
}

WriteStatus RecordWriter::seal_slot(tunio::PacketBatch& batch, std::size_t i, bool& sealed) {
  const std::size_t head = wire::seal_headroom(codec_.framing());
  const std::size_t data_len = batch.packet(i).size();
  const std::size_t room = batch.room_after(i);
  const std::size_t fixed_tail = wire::seal_tailroom(0) + overhead_.tail;
  if (data_len > max_data_ || room < fixed_tail || batch.room_before(i) < head + overhead_.head) {
    // Above what one record of this carrier holds (an MTU above the carrier's limit), or
    // a batch built without our room (a caller bug): never sent, always counted.
    SessionCounters::add(counters_.drop_too_big);
    return WriteStatus::kOk;
  }
  std::size_t pad = padding_.pick(data_len, std::min(mtu_, max_data_), rng_);
  pad = std::min(pad, room - fixed_tail);
  batch.prepend(i, head);
  batch.set_length(i, head + data_len + wire::seal_tailroom(pad));
  auto rec = codec_.seal_in_place(batch.packet(i), data_len, pad);
  if (!rec.ok()) {
    if (rec.error() == wire::SealError::kCounterExhausted) return WriteStatus::kCounterExhausted;
    SessionCounters::add(counters_.drop_too_big);
    return WriteStatus::kOk;
  }
  chunks_.push_back(batch.packet(i).first(*rec));
  sealed = true;
  return WriteStatus::kOk;
}

WriteStatus RecordWriter::seal_split(ByteSpan packet, const tunio::GsoMetadata& meta,
                                     const StopSignal& stop, std::uint64_t& records) {
  segments_.clear();
  auto n = tunio::gso_split_all(packet, meta, segments_);
  if (!n.ok()) {
    SessionCounters::add(counters_.drop_bad_gso);
    return WriteStatus::kOk;
  }
  for (std::size_t k = 0; k < segments_.size(); ++k) {
    bool sealed = false;
    const WriteStatus st = seal_slot(segments_, k, sealed);
    if (st != WriteStatus::kOk) return st;
    if (sealed) ++records;
  }
  // chunks_ now points into segments_, which the next super-packet overwrites.
  const WriteStatus st = write_chunks(stop);
  gso_used_ = 0;
  return st;
}

bool RecordWriter::seal_super_packet(ByteSpan packet, const tunio::GsoMetadata& meta,
                                     WriteStatus& st) {
  const std::size_t head = wire::seal_headroom(codec_.framing());
  if (max_gso_chunk_ == 0) {
    st = WriteStatus::kError;  // a carrier too small for any chunk: a configuration bug
    return false;
  }
  const std::size_t chunks = (packet.size() + max_gso_chunk_ - 1) / max_gso_chunk_;
  // Each record sits in its own [stream head | record | stream tail] room.
  const std::size_t per_record =
      overhead_.head + head + wire::kGsoChunkPrefix + wire::seal_tailroom(0) + overhead_.tail;
  const std::size_t need = packet.size() + chunks * per_record;
  if (gso_used_ + need > kGsoBufBytes || chunks_.size() + chunks > chunks_.capacity()) {
    return false;
  }
  wire::GsoChunkHeader h = to_chunk_header(meta, packet.size());
  for (std::size_t off = 0; off < packet.size(); off += max_gso_chunk_) {
    const std::size_t n = std::min(max_gso_chunk_, packet.size() - off);
    h.offset = static_cast<std::uint16_t>(off);
    std::uint8_t* rec = gso_buf_.get() + gso_used_ + overhead_.head;
    write_gso_chunk_prefix(h, rec + head);
    std::memcpy(rec + head + wire::kGsoChunkPrefix, packet.data() + off, n);
    const std::size_t data_len = wire::kGsoChunkPrefix + n;
    auto sealed =
        codec_.seal_in_place({rec, head + data_len + wire::seal_tailroom(0)}, data_len, 0);
    if (!sealed.ok()) {
      st = sealed.error() == wire::SealError::kCounterExhausted ? WriteStatus::kCounterExhausted
                                                                : WriteStatus::kError;
      return false;
    }
    chunks_.push_back({rec, *sealed});
    gso_used_ += overhead_.head + *sealed + overhead_.tail;
  }
  return true;
}

WriteStatus RecordWriter::write_one(ByteSpan plaintext, std::size_t padding,
                                    const StopSignal& stop) {
  const MutableByteSpan room(scratch_.data() + overhead_.head,
                             scratch_.size() - overhead_.head - overhead_.tail);
  auto sealed = codec_.seal(
      plaintext, std::min(padding, max_data_ - std::min(max_data_, plaintext.size())), room);
  if (!sealed.ok()) {
    return sealed.error() == wire::SealError::kCounterExhausted ? WriteStatus::kCounterExhausted
                                                                : WriteStatus::kError;
  }
  chunks_.clear();
  chunks_.push_back(room.first(*sealed));
  return write_chunks(stop);
}

WriteStatus RecordWriter::write_chunks(const StopSignal& stop) {
  transport::StreamStatus st = stream_.write(chunks_);
  chunks_.clear();
  while (st == transport::StreamStatus::kWouldBlock) {
    pollfd p[2] = {{stream_.fd(), POLLOUT, 0}, {stop.fd(), POLLIN, 0}};
    if (::poll(p, 2, -1) < 0 && errno != EINTR) return WriteStatus::kError;
    if (p[1].revents != 0) return WriteStatus::kStopped;
    st = stream_.resume();
  }
  if (st == transport::StreamStatus::kClosed) return WriteStatus::kClosed;
  if (st != transport::StreamStatus::kOk) return WriteStatus::kError;
  last_write_ = std::chrono::steady_clock::now();
  return WriteStatus::kOk;
}

}  // namespace qeli::engine
