// ipv4_fragment (tunio/ipv4_fragment.h) on arbitrary packets: never reads or writes out of
// bounds, writes nothing on error, and on success the fragments satisfy the independent
// reassembler of fakes/ipv4_reassembler.h — every fragment ≤ mtu, header checksums valid,
// offsets contiguous from the input's, MF as the input's on the last — and reassemble to
// exactly the input's header (bar length, flags/offset and checksum) and payload.
// Input: mtu(2) ‖ slots(1) ‖ packet.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "fakes/ipv4_reassembler.h"
#include "fakes/packet_builder.h"
#include "tunio/ipv4_fragment.h"

using namespace qeli;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 3) return 0;
  const std::size_t mtu = static_cast<std::size_t>((data[0] << 8) | data[1]);
  const std::size_t slots = static_cast<std::size_t>(data[2] % 64) + 1;
  const ByteSpan packet(data + 3, size - 3);
  tunio::PacketBatch out(slots, 2048);
  const auto r = tunio::ipv4_fragment(packet, mtu, out);
  if (!r.ok()) {
    if (!out.empty()) std::abort();
    return 0;
  }
  if (*r != out.size() || *r == 0) std::abort();
  const std::uint8_t* ip = packet.data();
  const std::size_t ihl = static_cast<std::size_t>(ip[0] & 0x0f) * 4;
  const std::size_t total = test::rd16(ip + 2);
  if (total <= mtu) {  // copied as is
    if (*r != 1 || out.packet(0).size() != total) std::abort();
    if (std::memcmp(out.packet(0).data(), ip, total) != 0) std::abort();
    return 0;
  }
  std::vector<test::PacketBytes> frags;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const ByteSpan f = out.packet(i);
    frags.emplace_back(f.begin(), f.end());
  }
  const test::Reassembled re = test::reassemble(frags, mtu);
  if (!re.error.empty()) std::abort();
  const std::uint16_t fo = test::rd16(ip + 6);
  if (re.offset != std::size_t{fo & 0x1fffu} * 8 || re.more != ((fo & 0x2000) != 0)) std::abort();
  if (re.first_header.size() != ihl) std::abort();
  // Same header but for total length (2), flags/offset (6) and checksum (10).
  if (std::memcmp(re.first_header.data(), ip, 2) != 0 ||
      std::memcmp(re.first_header.data() + 4, ip + 4, 2) != 0 ||
      std::memcmp(re.first_header.data() + 8, ip + 8, 2) != 0 ||
      std::memcmp(re.first_header.data() + 12, ip + 12, ihl - 12) != 0) {
    std::abort();
  }
  if (re.data.size() != total - ihl || std::memcmp(re.data.data(), ip + ihl, total - ihl) != 0) {
    std::abort();
  }
  return 0;
}
