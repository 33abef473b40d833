#include "tunio/checksum.h"

#include <bit>
#include <cstring>

#include "base/endian.h"
#include "tunio/ip_header.h"

namespace qeli::tunio {

std::uint64_t checksum_add(ByteSpan data, std::uint64_t initial) {
  // Sum native 32-bit words into 64 bits (no overflow below 2^34 bytes), fold, and swap
  // to big-endian word order at the end: the one's-complement sum commutes with byte
  // swapping (RFC 1071 §2(B)), so this equals the word-by-word big-endian sum.
  const std::uint8_t* p = data.data();
  std::size_t n = data.size();
  std::uint64_t acc = 0;
  while (n >= 16) {
    std::uint32_t w[4];
    std::memcpy(w, p, sizeof w);
    acc += std::uint64_t{w[0]} + w[1] + w[2] + w[3];
    p += 16;
    n -= 16;
  }
  while (n >= 4) {
    std::uint32_t w;
    std::memcpy(&w, p, sizeof w);
    acc += w;
    p += 4;
    n -= 4;
  }
  if (n >= 2) {
    std::uint16_t w;
    std::memcpy(&w, p, sizeof w);
    acc += w;
    p += 2;
    n -= 2;
  }
  if (n == 1) {
    // The odd byte is the high byte of a big-endian word; in native order that is the
    // byte at the lower address, i.e. the value `*p` stored little-endian.
    std::uint8_t pad[2] = {*p, 0};
    std::uint16_t w;
    std::memcpy(&w, pad, sizeof w);
    acc += w;
  }
  std::uint16_t folded = checksum_fold(acc);
  if constexpr (std::endian::native == std::endian::little) {
    folded = static_cast<std::uint16_t>((folded >> 8) | (folded << 8));
  }
  return initial + folded;
}

std::uint16_t checksum_fold(std::uint64_t sum) {
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<std::uint16_t>(sum);
}

std::uint64_t pseudo_header_sum(ByteSpan src, ByteSpan dst, std::uint8_t proto,
                                std::uint32_t l4_len) {
  std::uint64_t s = checksum_add(src);
  s = checksum_add(dst, s);
  s += proto;
  s += l4_len >> 16;  // IPv6 carries a 32-bit length; IPv4's fits in the low word
  s += l4_len & 0xffff;
  return s;
}

void write_ipv4_header_checksum(std::uint8_t* ip, std::size_t ihl_bytes) {
  store_be16(ip + 10, 0);
  const std::uint16_t c = static_cast<std::uint16_t>(~checksum_fold(checksum_add({ip, ihl_bytes})));
  store_be16(ip + 10, c);
}

bool ipv4_header_checksum_ok(const std::uint8_t* ip, std::size_t ihl_bytes) {
  return checksum_fold(checksum_add({ip, ihl_bytes})) == 0xffff;
}

bool complete_partial_checksum(MutableByteSpan packet, std::size_t csum_start,
                               std::size_t csum_offset, bool is_udp) {
  const std::size_t field = csum_start + csum_offset;
  if (csum_start > packet.size() || field + 2 > packet.size() || field < csum_start) return false;
  const std::uint16_t partial = load_be16(packet.data() + field);
  store_be16(packet.data() + field, 0);
  std::uint16_t c =
      static_cast<std::uint16_t>(~checksum_fold(checksum_add(packet.subspan(csum_start), partial)));
  if (is_udp && c == 0) c = 0xffff;
  store_be16(packet.data() + field, c);
  return true;
}

namespace {
std::uint64_t l4_pseudo_sum(ByteSpan packet, std::size_t l4_offset, std::uint8_t proto) {
  const std::uint32_t l4_len = static_cast<std::uint32_t>(packet.size() - l4_offset);
  if (ip_version(packet.data()) == 4) {
    return pseudo_header_sum(packet.subspan(12, 4), packet.subspan(16, 4), proto, l4_len);
  }
  return pseudo_header_sum(packet.subspan(8, 16), packet.subspan(24, 16), proto, l4_len);
}
std::size_t l4_csum_field(std::uint8_t proto) { return proto == kIpProtoUdp ? 6 : 16; }
}  // namespace

bool l4_checksum_ok(ByteSpan packet, std::size_t l4_offset, std::uint8_t proto) {
  const std::size_t field = l4_offset + l4_csum_field(proto);
  if (field + 2 > packet.size()) return false;
  if (proto == kIpProtoUdp && ip_version(packet.data()) == 4 &&
      load_be16(packet.data() + field) == 0) {
    return true;  // RFC 768: IPv4 UDP may carry no checksum
  }
  const std::uint64_t s =
      checksum_add(packet.subspan(l4_offset), l4_pseudo_sum(packet, l4_offset, proto));
  return checksum_fold(s) == 0xffff;
}

void write_l4_checksum(MutableByteSpan packet, std::size_t l4_offset, std::uint8_t proto) {
  const std::size_t field = l4_offset + l4_csum_field(proto);
  store_be16(packet.data() + field, 0);
  std::uint16_t c = static_cast<std::uint16_t>(~checksum_fold(
      checksum_add(ByteSpan(packet).subspan(l4_offset), l4_pseudo_sum(packet, l4_offset, proto))));
  if (proto == kIpProtoUdp && c == 0) c = 0xffff;
  store_be16(packet.data() + field, c);
}

}  // namespace qeli::tunio
