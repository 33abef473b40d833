#include "wire/udp_frag.h"

#include <algorithm>
#include <cstring>

#include "base/endian.h"

namespace qeli::wire {

namespace {

bool has_magic(ByteSpan d) {
  return d.size() >= kFragHeaderSize && d[0] == kFragMagic0 && d[1] == kFragMagic1 &&
         d[2] == kFragMagic2;
}

// A fragment header only ever carries small numbers; the chunk sizes fit u16.
static_assert(kFragMaxChunkAccept <= 0xFFFF && kFragMaxCount <= 0xFF);

}  // namespace

DatagramKind classify_datagram(ByteSpan d) {
  if (has_magic(d)) {
    switch (d[3]) {
      case udp_msg::kClientHello: return DatagramKind::kClientHelloFragment;
      case udp_msg::kServerFlight: return DatagramKind::kServerFlightFragment;
      case udp_msg::kJunk: return DatagramKind::kJunk;
      case udp_msg::kMtuProbe: return DatagramKind::kMtuProbe;
      case udp_msg::kMtuProbeAck: return DatagramKind::kMtuProbeAck;
      case udp_msg::kAuthOk: return DatagramKind::kAuthOkFragment;
      case udp_msg::kCookieChallenge: return DatagramKind::kCookieChallenge;
      case udp_msg::kCookieEcho: return DatagramKind::kCookieEcho;
      default: return DatagramKind::kUnknownFragment;
    }
  }
  if (d.size() >= kTlsHeaderSize && d[1] == 0x03 && d[2] == 0x03) {
    if (d[0] == kContentApplicationData) return DatagramKind::kDataRecord;
    if (d[0] == kContentHandshake) return DatagramKind::kHandshakeRecord;
  }
  // A legacy hello may carry record version 03 01 (Chrome style); qeli writes 03 03.
  if (d.size() >= kTlsHeaderSize && d[0] == kContentHandshake && d[1] == 0x03 && d[2] == 0x01) {
    return DatagramKind::kHandshakeRecord;
  }
  return DatagramKind::kOther;
}

const char* to_string(DatagramKind k) {
  switch (k) {
    case DatagramKind::kClientHelloFragment: return "client-hello-fragment";
    case DatagramKind::kServerFlightFragment: return "server-flight-fragment";
    case DatagramKind::kJunk: return "junk";
    case DatagramKind::kMtuProbe: return "mtu-probe";
    case DatagramKind::kMtuProbeAck: return "mtu-probe-ack";
    case DatagramKind::kAuthOkFragment: return "auth-ok-fragment";
    case DatagramKind::kCookieChallenge: return "cookie-challenge";
    case DatagramKind::kCookieEcho: return "cookie-echo";
    case DatagramKind::kUnknownFragment: return "unknown-fragment";
    case DatagramKind::kDataRecord: return "data-record";
    case DatagramKind::kHandshakeRecord: return "handshake-record";
    case DatagramKind::kOther: return "other";
  }
  return "?";
}

const char* to_string(FragError e) {
  switch (e) {
    case FragError::kNotFragment: return "not a fragment";
    case FragError::kZeroCount: return "fragment count 0";
    case FragError::kTooManyFragments: return "fragment count over 24";
    case FragError::kIndexOutOfRange: return "fragment index >= count";
    case FragError::kChunkTooLarge: return "fragment chunk over 1200 bytes";
    case FragError::kWrongMessage: return "fragment of another message id";
    case FragError::kCountMismatch: return "fragment count differs from earlier fragments";
    case FragError::kChunkMismatch: return "fragment differs from an earlier copy";
    case FragError::kMessageTooLarge: return "message too large";
    case FragError::kEmptyMessage: return "empty message";
    case FragError::kBadChunkLimit: return "chunk limit out of range";
    case FragError::kBadProbe: return "malformed MTU probe";
    case FragError::kBadCookie: return "malformed cookie message";
  }
  return "?";
}

Result<Fragment, FragError> parse_fragment(ByteSpan d) {
  if (!has_magic(d)) return fail(FragError::kNotFragment);
  Fragment f{d[3], d[4], d[5], d.subspan(kFragHeaderSize)};
  if (f.count == 0) return fail(FragError::kZeroCount);
  if (f.count > kFragMaxCount) return fail(FragError::kTooManyFragments);
  if (f.index >= f.count) return fail(FragError::kIndexOutOfRange);
  if (f.chunk.size() > kFragMaxChunkAccept) return fail(FragError::kChunkTooLarge);
  return f;
}

std::size_t write_fragment(std::uint8_t msg_id, std::uint8_t index, std::uint8_t count,
                           ByteSpan chunk, MutableByteSpan out) {
  const std::size_t n = kFragHeaderSize + chunk.size();
  if (out.size() < n) return 0;
  out[0] = kFragMagic0;
  out[1] = kFragMagic1;
  out[2] = kFragMagic2;
  out[3] = msg_id;
  out[4] = index;
  out[5] = count;
  if (!chunk.empty()) std::memcpy(out.data() + kFragHeaderSize, chunk.data(), chunk.size());
  return n;
}

Result<std::vector<Bytes>, FragError> fragment_message(std::uint8_t msg_id, ByteSpan message,
                                                       std::size_t chunk_limit) {
  if (chunk_limit == 0 || chunk_limit > kFragMaxChunk) return fail(FragError::kBadChunkLimit);
  if (message.empty()) return fail(FragError::kEmptyMessage);
  const std::size_t count = (message.size() + chunk_limit - 1) / chunk_limit;
  if (count > kFragMaxCount) return fail(FragError::kMessageTooLarge);
  std::vector<Bytes> out;
  out.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    const ByteSpan chunk =
        message.subspan(i * chunk_limit, std::min(chunk_limit, message.size() - i * chunk_limit));
    Bytes frag(kFragHeaderSize + chunk.size());
    write_fragment(msg_id, static_cast<std::uint8_t>(i), static_cast<std::uint8_t>(count), chunk,
                   frag);
    out.push_back(std::move(frag));
  }
  return out;
}

// ---- Reassembler -------------------------------------------------------------------------

Reassembler::Reassembler(std::uint8_t msg_id, std::size_t max_message)
    : msg_id_(msg_id), max_message_(std::min(max_message, kFragMaxAcceptMessage)) {}

void Reassembler::reset() {
  count_ = 0;
  received_ = 0;
  chunks_.clear();
  have_.fill(false);
}

bool Reassembler::expire(Instant now) {
  if (count_ == 0 || now - started_ < kFragReassemblyTimeout) return false;
  reset();
  return true;
}

std::optional<Instant> Reassembler::deadline() const {
  if (count_ == 0) return std::nullopt;
  return started_ + kFragReassemblyTimeout;
}

void Reassembler::start(const Fragment& f, Instant now) {
  reset();
  count_ = f.count;
  started_ = now;
}

Result<Reassembler::Progress, FragError> Reassembler::add(ByteSpan datagram, Instant now) {
  message_.clear();
  auto parsed = parse_fragment(datagram);
  if (!parsed.ok()) return fail(parsed.error());
  const Fragment& f = *parsed;
  if (f.msg_id != msg_id_) return fail(FragError::kWrongMessage);
  expire(now);

  std::optional<FragError> restarted;
  if (count_ == 0) {
    start(f, now);
  } else if (f.count != count_) {
    start(f, now);
    restarted = FragError::kCountMismatch;
  } else if (have_[f.index]) {
    const ByteSpan held(chunks_.data() + offset_[f.index], len_[f.index]);
    if (held.size() == f.chunk.size() && std::equal(held.begin(), held.end(), f.chunk.begin())) {
      return Progress::kDuplicate;
    }
    start(f, now);
    restarted = FragError::kChunkMismatch;
  }
  if (chunks_.size() + f.chunk.size() > max_message_) {
    reset();
    return fail(FragError::kMessageTooLarge);
  }
  offset_[f.index] = static_cast<std::uint16_t>(chunks_.size());
  len_[f.index] = static_cast<std::uint16_t>(f.chunk.size());
  have_[f.index] = true;
  append(chunks_, f.chunk);
  ++received_;
  if (restarted) return fail(*restarted);
  if (received_ < count_) return Progress::kPartial;

  message_.reserve(chunks_.size());
  for (std::size_t i = 0; i < count_; ++i) {
    append(message_, ByteSpan(chunks_.data() + offset_[i], len_[i]));
  }
  reset();
  return Progress::kComplete;
}

// ---- MTU probes and junk -------------------------------------------------------------------

namespace {
void write_probe_fields(const MtuProbe& p, std::uint8_t* out) {
  store_le16(out, p.id);
  store_le16(out + 2, p.outer_size);
}
}  // namespace

Bytes build_mtu_probe(const MtuProbe& p, std::size_t datagram_size, crypto::Rng& rng) {
  Bytes d(std::max(datagram_size, kFragHeaderSize + kMtuProbeFieldsSize));
  write_fragment(udp_msg::kMtuProbe, 0, 1, {}, d);
  write_probe_fields(p, d.data() + kFragHeaderSize);
  rng.fill(MutableByteSpan(d).subspan(kFragHeaderSize + kMtuProbeFieldsSize));
  return d;
}

Bytes build_mtu_probe_ack(const MtuProbe& p) {
  Bytes d(kFragHeaderSize + kMtuProbeFieldsSize);
  write_fragment(udp_msg::kMtuProbeAck, 0, 1, {}, d);
  write_probe_fields(p, d.data() + kFragHeaderSize);
  return d;
}

Result<ParsedProbe, FragError> parse_mtu_probe(ByteSpan d) {
  // Probes are not subject to the chunk limit (they test sizes above it), so only the
  // magic, the id and the four payload bytes are checked.
  if (!has_magic(d)) return fail(FragError::kNotFragment);
  if ((d[3] != udp_msg::kMtuProbe && d[3] != udp_msg::kMtuProbeAck) ||
      d.size() < kFragHeaderSize + kMtuProbeFieldsSize) {
    return fail(FragError::kBadProbe);
  }
  const std::uint8_t* p = d.data() + kFragHeaderSize;
  return ParsedProbe{{load_le16(p), load_le16(p + 2)}, d[3] == udp_msg::kMtuProbeAck};
}

Bytes build_junk(std::size_t len, crypto::Rng& rng) {
  len = std::clamp<std::size_t>(len, 1, kFragMaxChunk);
  Bytes d(kFragHeaderSize + len);
  write_fragment(udp_msg::kJunk, 0, 1, {}, d);
  rng.fill(MutableByteSpan(d).subspan(kFragHeaderSize));
  return d;
}

}  // namespace qeli::wire
