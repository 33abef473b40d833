#include "engine/stream_framer.h"

#include <poll.h>

#include <cerrno>

#include "wire/gso_chunk.h"
#include "wire/limits.h"

namespace qeli::engine {

using Status = ReceiveResult::Status;
using tunnel::SessionEnd;

const char* to_string(WriteStatus s) {
  switch (s) {
    case WriteStatus::kOk: return "ok";
    case WriteStatus::kClosed: return "peer closed the connection";
    case WriteStatus::kStopped: return "stopped";
    case WriteStatus::kError: return "socket error";
  }
  return "?";
}

SessionEnd from_write(WriteStatus s) {
  switch (s) {
    case WriteStatus::kOk:
    case WriteStatus::kStopped: return SessionEnd::kStopped;
    case WriteStatus::kClosed: return SessionEnd::kPeerClosed;
    case WriteStatus::kError: return SessionEnd::kSocketError;
  }
  return SessionEnd::kSocketError;
}

tunnel::CarrierRoom stream_room(const transport::Overhead& o) {
  tunnel::CarrierRoom r;
  r.head = o.head;
  r.tail = o.tail;
  r.max_record = o.max_chunk == transport::kUnlimitedChunk ? tunnel::kUnlimitedRecord : o.max_chunk;
  r.stream = true;
  return r;
}

StreamFramer::StreamFramer(transport::Stream& stream, wire::Framing framing, ByteSpan leftover)
    : stream_(stream), reader_(framing, wire::kMaxRecordPayload) {
  while (!leftover.empty()) {
    const std::size_t took = reader_.feed(leftover);
    leftover = leftover.subspan(took);
    if (took == 0) break;  // cannot happen: the reader holds two records and leftover < one
  }
}

WriteStatus StreamFramer::write(tunnel::RecordQueue& records, const StopSignal& stop) {
  transport::StreamStatus st = stream_.write(records.records());
  while (st == transport::StreamStatus::kWouldBlock) {
    pollfd p[2] = {{stream_.fd(), POLLOUT, 0}, {stop.fd(), POLLIN, 0}};
    if (::poll(p, 2, -1) < 0 && errno != EINTR) return WriteStatus::kError;
    if (p[1].revents != 0) return WriteStatus::kStopped;
    st = stream_.resume();
  }
  if (st == transport::StreamStatus::kClosed) return WriteStatus::kClosed;
  if (st != transport::StreamStatus::kOk) return WriteStatus::kError;
  return WriteStatus::kOk;
}

tunio::PacketBatch StreamFramer::make_tun_batch(std::size_t packets) const {
  return tunio::PacketBatch(packets, wire::kMaxSuperPacket);
}

ReceiveResult StreamFramer::drain(tunnel::Receiver& rx, tunio::PacketBatch& tun_batch,
                                  Instant now) {
  for (;;) {
    if (tun_batch.full()) return {Status::kFlush};
    auto next = reader_.next();
    if (next.status == wire::RecordReader::Status::kNeedMore) return {Status::kAgain};
    if (next.status == wire::RecordReader::Status::kError) {
      return {Status::kEnd, SessionEnd::kRecordFraming};
    }
    const tunnel::Inbound in = rx.open(next.record, now);
    if (in.kind == tunnel::InboundKind::kEnd) return {Status::kEnd, in.end};
    if (in.kind != tunnel::InboundKind::kPacket) continue;
    if (!tun_batch.push(in.packet, in.meta)) {
      rx.counters().add(tunnel::SessionCounter::kDropTooBig);  // above the TUN's 64 KiB
    }
  }
}

ReceiveResult StreamFramer::receive(tunnel::Receiver& rx, tunio::PacketBatch& tun_batch,
                                    Instant now) {
  const ReceiveResult pending = drain(rx, tun_batch, now);
  if (pending.status != Status::kAgain) return pending;
  auto space = reader_.write_space();
  if (space.empty()) {
    if (reader_.error() != wire::DeframeError::kNone) {
      return {Status::kEnd, SessionEnd::kRecordFraming};
    }
    return {Status::kAgain};
  }
  const transport::ReadResult r = stream_.read(space);
  switch (r.status) {
    case transport::StreamStatus::kOk: break;
    case transport::StreamStatus::kWouldBlock: return {Status::kWouldBlock};
    case transport::StreamStatus::kClosed: return {Status::kEnd, SessionEnd::kPeerClosed};
    case transport::StreamStatus::kError: return {Status::kEnd, SessionEnd::kSocketError};
  }
  reader_.commit(r.bytes);
  return drain(rx, tun_batch, now);
}

}  // namespace qeli::engine
