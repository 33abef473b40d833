#include "engine/record_writer.h"

#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include "engine/gso_convert.h"
#include "tunio/offload_split.h"

namespace qeli::engine {

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

RecordWriter::RecordWriter(wire::PacketCodec codec, PaddingPolicy padding, std::size_t mtu,
                           crypto::Rng& rng, SessionCounters& counters)
    : codec_(std::move(codec)),
      padding_(padding),
      mtu_(mtu),
      rng_(rng),
      counters_(counters),
      scratch_(wire::max_record_size(wire::Framing::kTls)),
      gso_buf_(std::make_unique_for_overwrite<std::uint8_t[]>(kGsoBufBytes)),
      // 64 KiB / the smallest IPv4 segment (576 − 40 bytes) < 128 segments.
      segments_(128, wire::kMaxTunnelMtu, kHeadroom, tailroom(padding)),
      last_write_(std::chrono::steady_clock::now()) {
  iov_.reserve(1024);
}

WriteStatus RecordWriter::seal_and_write(int fd, tunio::PacketBatch& batch,
                                         const StopSignal& stop) {
  iov_.clear();
  gso_used_ = 0;
  std::uint64_t bytes = 0;
  std::uint64_t records = 0;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    const std::size_t data_len = batch.packet(i).size();
    if (!batch.meta(i).is_plain() && !peer_gso_) {
      const WriteStatus st = seal_split(fd, batch.packet(i), batch.meta(i), stop, records);
      if (st != WriteStatus::kOk) return st;
      bytes += data_len;
      continue;
    }
    if (!batch.meta(i).is_plain()) {
      WriteStatus st = WriteStatus::kOk;
      if (!seal_super_packet(batch.packet(i), batch.meta(i), st)) {
        if (st != WriteStatus::kOk) return st;
        // Buffer full: send what is sealed so far, then retry this packet.
        st = write_iov(fd, iov_.data(), iov_.size(), stop);
        if (st != WriteStatus::kOk) return st;
        iov_.clear();
        gso_used_ = 0;
        if (!seal_super_packet(batch.packet(i), batch.meta(i), st)) return WriteStatus::kError;
      }
      bytes += data_len;
      ++records;
      continue;
    }
    const WriteStatus st = seal_slot(batch, i);
    if (st != WriteStatus::kOk) return st;
    bytes += data_len;
    ++records;
  }
  if (iov_.empty()) return WriteStatus::kOk;
  const WriteStatus st = write_iov(fd, iov_.data(), iov_.size(), stop);
  if (st == WriteStatus::kOk) {
    SessionCounters::add(counters_.tx_packets, records);
    SessionCounters::add(counters_.tx_bytes, bytes);
  }
  return st;
}

WriteStatus RecordWriter::seal_slot(tunio::PacketBatch& batch, std::size_t i) {
  const std::size_t head = wire::seal_headroom(codec_.framing());
  const std::size_t data_len = batch.packet(i).size();
  std::size_t pad = padding_.pick(data_len, mtu_, rng_);
  pad = std::min(pad, batch.room_after(i) > wire::seal_tailroom(0)
                          ? batch.room_after(i) - wire::seal_tailroom(0)
                          : 0);
  batch.prepend(i, head);
  batch.set_length(i, head + data_len + wire::seal_tailroom(pad));
  auto sealed = codec_.seal_in_place(batch.packet(i), data_len, pad);
  if (!sealed.ok()) {
    if (sealed.error() == wire::SealError::kCounterExhausted) {
      return WriteStatus::kCounterExhausted;
    }
    return WriteStatus::kOk;  // kTooLarge cannot happen for TUN packets ≤ MTU; skip
  }
  auto rec = batch.packet(i);
  iov_.push_back({rec.data(), *sealed});
  return WriteStatus::kOk;
}

WriteStatus RecordWriter::seal_split(int fd, ByteSpan packet, const tunio::GsoMetadata& meta,
                                     const StopSignal& stop, std::uint64_t& records) {
  segments_.clear();
  auto n = tunio::gso_split_all(packet, meta, segments_);
  if (!n.ok()) {
    SessionCounters::add(counters_.drop_bad_gso);
    return WriteStatus::kOk;
  }
  for (std::size_t k = 0; k < segments_.size(); ++k) {
    const WriteStatus st = seal_slot(segments_, k);
    if (st != WriteStatus::kOk) return st;
  }
  records += segments_.size();
  // iov_ now points into segments_, which the next super-packet overwrites.
  const WriteStatus st = write_iov(fd, iov_.data(), iov_.size(), stop);
  iov_.clear();
  gso_used_ = 0;
  return st;
}

bool RecordWriter::seal_super_packet(ByteSpan packet, const tunio::GsoMetadata& meta,
                                     WriteStatus& st) {
  const std::size_t head = wire::seal_headroom(codec_.framing());
  const std::size_t chunks = (packet.size() + wire::kMaxGsoChunk - 1) / wire::kMaxGsoChunk;
  const std::size_t need =
      packet.size() + chunks * (head + wire::kGsoChunkPrefix + wire::seal_tailroom(0));
  if (gso_used_ + need > kGsoBufBytes || iov_.size() + chunks > iov_.capacity()) return false;
  wire::GsoChunkHeader h = to_chunk_header(meta, packet.size());
  for (std::size_t off = 0; off < packet.size(); off += wire::kMaxGsoChunk) {
    const std::size_t n = std::min(wire::kMaxGsoChunk, packet.size() - off);
    h.offset = static_cast<std::uint16_t>(off);
    std::uint8_t* rec = gso_buf_.get() + gso_used_;
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
    iov_.push_back({rec, *sealed});
    gso_used_ += *sealed;
  }
  return true;
}

WriteStatus RecordWriter::write_one(int fd, ByteSpan plaintext, std::size_t padding,
                                    const StopSignal& stop) {
  auto sealed = codec_.seal(plaintext, padding, scratch_);
  if (!sealed.ok()) {
    return sealed.error() == wire::SealError::kCounterExhausted ? WriteStatus::kCounterExhausted
                                                                : WriteStatus::kError;
  }
  iovec v{scratch_.data(), *sealed};
  return write_iov(fd, &v, 1, stop);
}

WriteStatus RecordWriter::write_iov(int fd, iovec* iov, std::size_t count, const StopSignal& stop) {
  while (count > 0) {
    const int n_iov = static_cast<int>(std::min<std::size_t>(count, IOV_MAX));
    msghdr msg{};
    msg.msg_iov = iov;
    msg.msg_iovlen = static_cast<std::size_t>(n_iov);
    const ssize_t n = ::sendmsg(fd, &msg, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) {
        pollfd p[2] = {{fd, POLLOUT, 0}, {stop.fd(), POLLIN, 0}};
        if (::poll(p, 2, -1) < 0 && errno != EINTR) return WriteStatus::kError;
        if (p[1].revents != 0) return WriteStatus::kStopped;
        continue;
      }
      return (errno == EPIPE || errno == ECONNRESET) ? WriteStatus::kClosed : WriteStatus::kError;
    }
    // Advance past fully written iovecs, then trim a partially written one.
    auto done = static_cast<std::size_t>(n);
    while (count > 0 && done >= iov->iov_len) {
      done -= iov->iov_len;
      ++iov;
      --count;
    }
    if (count > 0 && done > 0) {
      iov->iov_base = static_cast<std::uint8_t*>(iov->iov_base) + done;
      iov->iov_len -= done;
    }
  }
  last_write_ = std::chrono::steady_clock::now();
  return WriteStatus::kOk;
}

}  // namespace qeli::engine
