#include "tunio/ipv4_fragment.h"

#include <algorithm>
#include <array>
#include <cstring>

#include "base/endian.h"
#include "tunio/checksum.h"
#include "tunio/ip_header.h"

namespace qeli::tunio {
namespace {

constexpr std::size_t kIpv4MaxHeader = 60;
constexpr std::uint16_t kIpv4Reserved = 0x8000;
constexpr std::uint8_t kOptEol = 0;
constexpr std::uint8_t kOptNop = 1;
constexpr std::uint8_t kOptCopied = 0x80;  // RFC 791 §3.1: "copied flag"
constexpr std::size_t kFragUnit = 8;       // fragment offsets count 8-byte blocks

// Builds the header of every fragment after the first into `hdr`: the fixed 20 bytes of
// `ip`, then the options of the list at ip[20, ihl) whose copied flag is set, then EOL
// bytes up to a multiple of 4 (RFC 791 §3.1: the header "must be padded out" to a 32-bit
// boundary). Returns its length, or 0 if the option list is malformed (a length octet < 2
// or running past the header). Options after an EOL are padding and ignored.
std::size_t build_later_header(const std::uint8_t* ip, std::size_t ihl,
                               std::array<std::uint8_t, kIpv4MaxHeader>& hdr) {
  std::memcpy(hdr.data(), ip, kIpv4MinHeader);
  std::size_t out = kIpv4MinHeader;
  std::size_t i = kIpv4MinHeader;
  while (i < ihl) {
    const std::uint8_t type = ip[i];
    if (type == kOptEol) break;
    if (type == kOptNop) {
      ++i;
      continue;
    }
    if (i + 1 >= ihl) return 0;
    const std::size_t len = ip[i + 1];
    if (len < 2 || len > ihl - i) return 0;
    if ((type & kOptCopied) != 0) {
      // Never overflows: the copied options are a subset of ihl - 20 <= 40 bytes.
      std::memcpy(hdr.data() + out, ip + i, len);
      out += len;
    }
    i += len;
  }
  while (out % 4 != 0) hdr[out++] = kOptEol;
  return out;
}

// Payload bytes per fragment behind a `header`-byte header: the largest multiple of 8
// with header + payload <= mtu; 0 if not even 8 bytes fit.
std::size_t fragment_unit(std::size_t mtu, std::size_t header) {
  return mtu < header + kFragUnit ? 0 : (mtu - header) / kFragUnit * kFragUnit;
}

}  // namespace

std::string_view to_string(FragError e) {
  switch (e) {
    case FragError::malformed: return "malformed";
    case FragError::dont_fragment: return "dont_fragment";
    case FragError::mtu_too_small: return "mtu_too_small";
    case FragError::too_many_fragments: return "too_many_fragments";
    case FragError::output_too_small: return "output_too_small";
  }
  return "unknown";
}

Result<std::size_t, FragError> ipv4_fragment(ByteSpan packet, std::size_t mtu, PacketBatch& out) {
  // 1. The one validation gate: nothing past it reads outside [0, total).
  if (packet.size() < kIpv4MinHeader || ip_version(packet.data()) != 4) {
    return fail(FragError::malformed);
  }
  const std::uint8_t* ip = packet.data();
  const std::size_t ihl = ipv4_ihl_bytes(ip);
  const std::size_t total = load_be16(ip + kIpv4TotalLenOff);
  if (ihl < kIpv4MinHeader || ihl > total || total > packet.size()) {
    return fail(FragError::malformed);
  }
  std::array<std::uint8_t, kIpv4MaxHeader> later{};
  const std::size_t later_ihl = build_later_header(ip, ihl, later);
  if (later_ihl == 0) return fail(FragError::malformed);

  // 2. Fits already: one unchanged packet.
  if (total <= mtu) {
    if (out.full()) return fail(FragError::too_many_fragments);
    if (out.max_packet() < total) return fail(FragError::output_too_small);
    std::memcpy(out.next_slot().data(), ip, total);
    out.commit(total);
    return std::size_t{1};
  }
  const std::uint16_t frag = load_be16(ip + kIpv4FragOff);
  if ((frag & kIpv4DontFragment) != 0) return fail(FragError::dont_fragment);

  // 3. The plan: sizes, count, and the offsets' 13-bit range, all checked before writing.
  const std::size_t first_unit = fragment_unit(mtu, ihl);
  const std::size_t later_unit = fragment_unit(mtu, later_ihl);
  if (first_unit == 0 || later_unit == 0) return fail(FragError::mtu_too_small);
  const std::size_t data = total - ihl;  // > first_unit, since total > mtu >= ihl + unit
  const std::size_t base_offset = static_cast<std::size_t>(frag & kIpv4FragOffsetMask) * kFragUnit;
  if (base_offset + data > kMaxIpPacket) return fail(FragError::malformed);
  const std::size_t rest = data - first_unit;
  const std::size_t count = 1 + (rest + later_unit - 1) / later_unit;
  if (count > out.free_slots()) return fail(FragError::too_many_fragments);
  const std::size_t largest = std::max(ihl + first_unit, later_ihl + std::min(later_unit, rest));
  if (largest > out.max_packet()) return fail(FragError::output_too_small);

  // 4. Emit: the first fragment keeps the whole header, the others the copied options.
  const std::uint16_t kept_flags = frag & (kIpv4Reserved | kIpv4MoreFragments);
  for (std::size_t pos = 0; pos < data;) {
    const bool first = pos == 0;
    const std::uint8_t* hdr = first ? ip : later.data();
    const std::size_t hl = first ? ihl : later_ihl;
    const std::size_t len = std::min(first ? first_unit : later_unit, data - pos);
    const bool last = pos + len == data;
    std::uint8_t* o = out.next_slot().data();
    std::memcpy(o, hdr, hl);
    std::memcpy(o + hl, ip + ihl + pos, len);
    o[0] = static_cast<std::uint8_t>(0x40 | (hl / 4));
    store_be16(o + kIpv4TotalLenOff, static_cast<std::uint16_t>(hl + len));
    const auto offset = static_cast<std::uint16_t>((base_offset + pos) / kFragUnit);
    const std::uint16_t mf = last ? (kept_flags & kIpv4MoreFragments) : kIpv4MoreFragments;
    store_be16(o + kIpv4FragOff,
               static_cast<std::uint16_t>((kept_flags & kIpv4Reserved) | mf | offset));
    write_ipv4_header_checksum(o, hl);
    out.commit(hl + len);
    pos += len;
  }
  return count;
}

}  // namespace qeli::tunio
