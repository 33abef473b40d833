// check_mtu / write_icmpv6_packet_too_big (tunio/mtu_clamp.h) on arbitrary IPv6 packets:
// never read or write out of bounds, and whatever ICMPv6 comes out is well-formed — at
// most 1280 bytes (RFC 4443 §2.4 c), an IPv6 header with next header 58 and a payload
// length that matches, type 2 code 0 with the MTU asked for, the addresses swapped, the
// quote a prefix of the input, and the checksum over the RFC 8200 §8.1 pseudo-header
// verifying (the slow reference sum of packet_builder.h).
// Input: mtu(2) ‖ gso_size(2) ‖ hdr_len(1) ‖ packet.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "fakes/packet_builder.h"
#include "tunio/mtu_clamp.h"

using namespace qeli;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 5) return 0;
  const auto mtu = static_cast<std::uint16_t>((data[0] << 8) | data[1]);
  tunio::GsoMetadata meta;
  meta.gso_size = static_cast<std::uint16_t>((data[2] << 8) | data[3]);
  meta.hdr_len = data[4];
  if (meta.gso_size != 0) meta.type = tunio::GsoType::tcp6;
  const ByteSpan packet(data + 5, size - 5);
  (void)tunio::check_mtu(packet, meta, mtu);

  std::uint8_t out[tunio::kIcmpv6PacketTooBigMaxSize];
  const std::size_t n = tunio::write_icmpv6_packet_too_big(packet, mtu, out);
  if (n == 0) return 0;
  if (n > sizeof out || n < 40 + 8 + 40 || n > 40 + 8 + packet.size()) std::abort();
  if ((out[0] >> 4) != 6 || out[6] != 58 || test::rd16(out + 4) != n - 40) std::abort();
  if (out[40] != 2 || out[41] != 0) std::abort();
  const std::uint32_t mtu_field =
      (static_cast<std::uint32_t>(test::rd16(out + 44)) << 16) | test::rd16(out + 46);
  if (mtu_field != mtu) std::abort();
  // Source = the packet's destination, destination = its source.
  if (std::memcmp(out + 8, packet.data() + 24, 16) != 0 ||
      std::memcmp(out + 24, packet.data() + 8, 16) != 0) {
    std::abort();
  }
  if (std::memcmp(out + 48, packet.data(), n - 48) != 0) std::abort();
  const auto icmp_len = static_cast<std::uint32_t>(n - 40);
  std::uint32_t acc = test::ref_sum(out + 8, 32);
  acc += 58;
  acc += icmp_len >> 16;
  acc += icmp_len & 0xffff;
  acc = test::ref_sum(out + 40, icmp_len, test::ref_fold(acc));
  if (test::ref_fold(acc) != 0xffff) std::abort();
  return 0;
}
