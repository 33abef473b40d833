// check_mtu / write_icmp_frag_needed (tunio/mtu_clamp.h) on arbitrary packets: never read
// or write out of bounds, and whatever ICMP comes out is well-formed — bounded size, both
// checksums verify (the slow reference sum of packet_builder.h), the addresses swapped,
// the quote a prefix of the input. Input: mtu(2) ‖ gso_size(2) ‖ hdr_len(1) ‖ packet.
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
  if (meta.gso_size != 0) meta.type = tunio::GsoType::tcp4;
  const ByteSpan packet(data + 5, size - 5);
  (void)tunio::check_mtu(packet, meta, mtu);

  std::uint8_t out[tunio::kIcmpFragNeededMaxSize];
  const std::size_t n = tunio::write_icmp_frag_needed(packet, mtu, out);
  if (n == 0) return 0;
  if (n > sizeof out || n < 20 + 8 + 20 || n > 20 + 8 + packet.size()) std::abort();
  if (test::ref_fold(test::ref_sum(out, 20)) != 0xffff) std::abort();
  if (test::ref_fold(test::ref_sum(out + 20, n - 20)) != 0xffff) std::abort();
  if (std::memcmp(out + 12, packet.data() + 16, 4) != 0 ||
      std::memcmp(out + 16, packet.data() + 12, 4) != 0) {
    std::abort();
  }
  if (std::memcmp(out + 28, packet.data(), n - 28) != 0) std::abort();
  if (test::rd16(out + 26) != mtu || out[20] != 3 || out[21] != 4) std::abort();
  return 0;
}
