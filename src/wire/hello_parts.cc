#include "wire/hello_parts.h"

#include <utility>

namespace qeli::wire {

std::uint16_t random_grease(crypto::Rng& rng) {
  const auto nib = static_cast<std::uint16_t>(rng.uniform(0, 15));
  return static_cast<std::uint16_t>((nib << 12) | 0x0A00 | (nib << 4) | 0x0A);
}

void write_extension(ByteWriter& w, std::uint16_t type, ByteSpan body) {
  w.u16(type);
  w.vec16(body);
}

void write_extension(ByteWriter& w, std::uint16_t type, std::initializer_list<std::uint8_t> body) {
  w.u16(type);
  w.u16(static_cast<std::uint16_t>(body.size()));
  for (std::uint8_t b : body) w.u8(b);
}

void write_server_name(ByteWriter& w, std::string_view host) {
  w.u16(0x0000);
  const std::size_t ext = w.open_length(2);
  const std::size_t list = w.open_length(2);
  w.u8(0);  // host_name
  const std::size_t name = w.open_length(2);
  w.bytes(as_bytes(host));
  w.close_length(name, 2);
  w.close_length(list, 2);
  w.close_length(ext, 2);
}

void write_protocol_list(ByteWriter& w, std::uint16_t type,
                         std::initializer_list<std::string_view> protocols) {
  w.u16(type);
  const std::size_t ext = w.open_length(2);
  const std::size_t list = w.open_length(2);
  for (std::string_view p : protocols) {
    w.u8(static_cast<std::uint8_t>(p.size()));
    w.bytes(as_bytes(p));
  }
  w.close_length(list, 2);
  w.close_length(ext, 2);
}

void shuffle_blocks(std::vector<Bytes>& blocks, crypto::Rng& rng) {
  if (blocks.size() < 2) return;
  for (std::size_t i = blocks.size() - 1; i > 0; --i) {
    std::swap(blocks[i], blocks[rng.uniform(0, i)]);
  }
}

}  // namespace qeli::wire
