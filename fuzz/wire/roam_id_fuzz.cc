// A roaming server's look at a datagram from an unknown address
// (wire::roam_id_in_datagram): any bytes, with and without the obfs seal, never read
// out of bounds; what it accepts is a record whose length field is exactly the rest.
#include <cstdlib>
#include <cstring>

#include "wire/roam_nonce.h"
#include "wire/udp_obfs.h"

using namespace qeli;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const crypto::Key32 key = [] {
    crypto::Key32 k;
    for (std::size_t i = 0; i < 32; ++i) k[i] = static_cast<std::uint8_t>(i);
    return k;
  }();
  static const crypto::NoncePrp prp(crypto::NoncePrp::FromPrpKey{}, key.span());
  static wire::UdpObfs obfs(std::string_view("fuzz-obfs-key"));
  for (wire::UdpObfs* o : {static_cast<wire::UdpObfs*>(nullptr), &obfs}) {
    const Bytes before(data, data + size);
    const auto id = wire::roam_id_in_datagram(ByteSpan(data, size), o, prp);
    if (id && size < 5 + 12 + 8 + 2 + 16) std::abort();
    if (size > 0 && std::memcmp(before.data(), data, size) != 0) std::abort();  // read-only
  }
  return 0;
}
