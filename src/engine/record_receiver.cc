#include "engine/record_receiver.h"

#include "engine/gso_convert.h"
#include "tunio/offload_validate.h"

namespace qeli::engine {

const char* to_string(ReceiveStatus s) {
  switch (s) {
    case ReceiveStatus::kOk: return "ok";
    case ReceiveStatus::kWouldBlock: return "would block";
    case ReceiveStatus::kBatchFull: return "batch full";
    case ReceiveStatus::kClosed: return "peer closed the connection";
    case ReceiveStatus::kError: return "socket error";
    case ReceiveStatus::kBadRecord: return "record failed to authenticate or parse";
    case ReceiveStatus::kDeframe: return "malformed record header";
  }
  return "?";
}

RecordReceiver::RecordReceiver(wire::PacketCodec codec, ByteSpan leftover,
                               SessionCounters& counters, ControlHandler on_control)
    : codec_(std::move(codec)),
      reader_(codec_.framing(), wire::kMaxRecordPayload),
      counters_(counters),
      on_control_(std::move(on_control)),
      last_auth_(std::chrono::steady_clock::now()) {
  while (!leftover.empty()) {
    const std::size_t took = reader_.feed(leftover);
    leftover = leftover.subspan(took);
    if (took == 0) break;  // cannot happen: the reader holds two records and leftover < one
  }
}

ReceiveStatus RecordReceiver::receive(transport::Stream& stream, tunio::PacketBatch& tun_batch) {
  const ReceiveStatus pending = drain(tun_batch);
  if (pending != ReceiveStatus::kOk) return pending;
  auto space = reader_.write_space();
  if (space.empty())
    return reader_.error() != wire::DeframeError::kNone ? ReceiveStatus::kDeframe
                                                        : ReceiveStatus::kOk;
  const transport::ReadResult r = stream.read(space);
  switch (r.status) {
    case transport::StreamStatus::kOk: break;
    case transport::StreamStatus::kWouldBlock: return ReceiveStatus::kWouldBlock;
    case transport::StreamStatus::kClosed: return ReceiveStatus::kClosed;
    case transport::StreamStatus::kError: return ReceiveStatus::kError;
  }
  reader_.commit(r.bytes);
  return drain(tun_batch);
}

void RecordReceiver::receive_gso_chunk(ByteSpan plaintext, tunio::PacketBatch& tun_batch) {
  auto chunk = wire::parse_gso_chunk(plaintext);
  if (!chunk) {
    SessionCounters::add(counters_.drop_bad_gso);
    return;
  }
  switch (gso_.add(*chunk)) {
    case wire::GsoAssembler::Result::kPartial: return;
    case wire::GsoAssembler::Result::kError: SessionCounters::add(counters_.drop_bad_gso); return;
    case wire::GsoAssembler::Result::kComplete: break;
  }
  const ByteSpan pkt = gso_.packet();
  // Peer metadata is hostile input: the one validation gate decides what the kernel gets.
  auto meta = tunio::revalidate(to_metadata(gso_.header()), pkt);
  if (!meta.ok() || pkt.size() < 20 || (pkt[0] >> 4) != 4 || pkt.size() > tun_batch.max_packet()) {
    SessionCounters::add(counters_.drop_bad_gso);
    return;
  }
  tun_batch.push(pkt, *meta);
}

ReceiveStatus RecordReceiver::drain(tunio::PacketBatch& tun_batch) {
  for (;;) {
    if (tun_batch.full()) return ReceiveStatus::kBatchFull;
    auto next = reader_.next();
    if (next.status == wire::RecordReader::Status::kNeedMore) return ReceiveStatus::kOk;
    if (next.status == wire::RecordReader::Status::kError) return ReceiveStatus::kDeframe;
    auto opened = codec_.open_in_place(next.record);
    if (!opened.ok()) {
      last_error_ = opened.error();
      if (opened.error() == wire::OpenError::kReplay) {
        // A replayed record authenticated: drop it, keep the connection (WireGuard does
        // the same); only the counter moves.
        SessionCounters::add(counters_.drop_replay);
        continue;
      }
      return ReceiveStatus::kBadRecord;
    }
    last_auth_ = std::chrono::steady_clock::now();
    const ByteSpan data = opened->data;
    switch (wire::classify_plaintext(data)) {
      case wire::PlaintextKind::kHeartbeat: SessionCounters::add(counters_.heartbeats_rx); break;
      case wire::PlaintextKind::kControl: {
        if (accept_gso_ && data.size() > 2 && data[2] == wire::kCtrlGsoChunk) {
          receive_gso_chunk(data, tun_batch);
          break;
        }
        SessionCounters::add(counters_.control_rx);
        auto frame = wire::parse_control_frame(data);
        if (frame.ok() && on_control_) on_control_(*frame);
        break;
      }
      case wire::PlaintextKind::kPacket:
        if ((data[0] >> 4) != 4 || data.size() < 20 || data.size() > tun_batch.max_packet()) {
          counters_.count_not_ipv4(data.data(), data.size());
          break;
        }
        tun_batch.push(data);
        break;
    }
  }
}

}  // namespace qeli::engine
