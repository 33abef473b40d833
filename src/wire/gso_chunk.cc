#include "wire/gso_chunk.h"

#include <cstring>

#include "base/endian.h"

namespace qeli::wire {

void write_gso_chunk_prefix(const GsoChunkHeader& h, std::uint8_t* out) {
  out[0] = kCtrlMagic0;
  out[1] = kCtrlMagic1;
  out[2] = kCtrlGsoChunk;
  out[3] = static_cast<std::uint8_t>(kGsoChunkBody);
  out[4] = h.gso_type;
  out[5] = h.needs_csum ? 1 : 0;
  store_be16(out + 6, h.gso_size);
  store_be16(out + 8, h.hdr_len);
  store_be16(out + 10, h.csum_start);
  store_be16(out + 12, h.csum_offset);
  store_be16(out + 14, h.total_len);
  store_be16(out + 16, h.offset);
}

std::optional<GsoChunk> parse_gso_chunk(ByteSpan p) {
  if (p.size() <= kGsoChunkPrefix || p[0] != kCtrlMagic0 || p[1] != kCtrlMagic1 ||
      p[2] != kCtrlGsoChunk || p[3] != kGsoChunkBody) {
    return std::nullopt;
  }
  GsoChunk c;
  c.header.gso_type = p[4];
  c.header.needs_csum = (p[5] & 1) != 0;
  c.header.gso_size = load_be16(p.data() + 6);
  c.header.hdr_len = load_be16(p.data() + 8);
  c.header.csum_start = load_be16(p.data() + 10);
  c.header.csum_offset = load_be16(p.data() + 12);
  c.header.total_len = load_be16(p.data() + 14);
  c.header.offset = load_be16(p.data() + 16);
  c.data = p.subspan(kGsoChunkPrefix);
  if (c.header.gso_type > 4 || (p[5] & ~1U) != 0 || c.header.total_len == 0) return std::nullopt;
  if (std::size_t{c.header.offset} + c.data.size() > c.header.total_len) return std::nullopt;
  return c;
}

GsoAssembler::GsoAssembler() : buf_(kMaxSuperPacket) {}

GsoAssembler::Result GsoAssembler::add(const GsoChunk& chunk) {
  const auto& h = chunk.header;
  if (h.offset == 0) {
    current_ = h;  // a new super-packet (an unfinished one before it is dropped)
    filled_ = 0;
  } else if (filled_ == 0 || h.offset != filled_ || h.total_len != current_.total_len ||
             h.gso_type != current_.gso_type || h.gso_size != current_.gso_size) {
    filled_ = 0;
    return Result::kError;
  }
  std::memcpy(buf_.data() + filled_, chunk.data.data(), chunk.data.size());
  filled_ += chunk.data.size();
  if (filled_ == current_.total_len) return Result::kComplete;
  return Result::kPartial;
}

}  // namespace qeli::wire
