// check_mtu and the ICMP answers to an oversized packet (tunio/mtu_clamp.h) on arbitrary
// packets: never read or write out of bounds, and whatever comes out is well-formed (the
// slow reference sums of packet_builder.h):
//   IPv4 — write_icmp_frag_needed: bounded size, both checksums verify, the addresses
//          swapped, the quote a prefix of the input;
//   IPv6 — write_icmpv6_packet_too_big: at most 1280 bytes (RFC 4443 §2.4 c), next header
//          58 with a payload length that matches, type 2 code 0 with the MTU asked for,
//          the addresses swapped, the quote a prefix of the input, the checksum over the
//          RFC 8200 §8.1 pseudo-header verifying.
// Input: mtu(2) ‖ gso_size(2) ‖ hdr_len(1) ‖ packet (its version nibble picks the family).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "fakes/packet_builder.h"
#include "tunio/mtu_clamp.h"

using namespace qeli;

namespace {

void frag_needed(ByteSpan packet, std::uint16_t mtu) {
  std::uint8_t out[tunio::kIcmpFragNeededMaxSize];
  const std::size_t n = tunio::write_icmp_frag_needed(packet, mtu, out);
  if (n == 0) return;
  if (n > sizeof out || n < 20 + 8 + 20 || n > 20 + 8 + packet.size()) std::abort();
  if (test::ref_fold(test::ref_sum(out, 20)) != 0xffff) std::abort();
  if (test::ref_fold(test::ref_sum(out + 20, n - 20)) != 0xffff) std::abort();
  if (std::memcmp(out + 12, packet.data() + 16, 4) != 0 ||
      std::memcmp(out + 16, packet.data() + 12, 4) != 0) {
    std::abort();
  }
  if (std::memcmp(out + 28, packet.data(), n - 28) != 0) std::abort();
  if (test::rd16(out + 26) != mtu || out[20] != 3 || out[21] != 4) std::abort();
}

void packet_too_big(ByteSpan packet, std::uint16_t mtu) {
  std::uint8_t out[tunio::kIcmpv6PacketTooBigMaxSize];
  const std::size_t n = tunio::write_icmpv6_packet_too_big(packet, mtu, out);
  if (n == 0) return;
  if (n > sizeof out || n < 40 + 8 + 40 || n > 40 + 8 + packet.size()) std::abort();
  if ((out[0] >> 4) != 6 || out[6] != 58 || test::rd16(out + 4) != n - 40) std::abort();
  if (out[40] != 2 || out[41] != 0) std::abort();
  const std::uint32_t mtu_field =
      (static_cast<std::uint32_t>(test::rd16(out + 44)) << 16) | test::rd16(out + 46);
  if (mtu_field != mtu) std::abort();
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
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 5) return 0;
  const auto mtu = static_cast<std::uint16_t>((data[0] << 8) | data[1]);
  const ByteSpan packet(data + 5, size - 5);
  const bool v6 = !packet.empty() && (packet[0] >> 4) == 6;
  tunio::GsoMetadata meta;
  meta.gso_size = static_cast<std::uint16_t>((data[2] << 8) | data[3]);
  meta.hdr_len = data[4];
  if (meta.gso_size != 0) meta.type = v6 ? tunio::GsoType::tcp6 : tunio::GsoType::tcp4;
  (void)tunio::check_mtu(packet, meta, mtu);
  // Both writers see every input: each must refuse the other family's packets.
  frag_needed(packet, mtu);
  packet_too_big(packet, mtu);
  return 0;
}
