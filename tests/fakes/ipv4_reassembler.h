// A slow, strict IPv4 reassembler (RFC 791 §3.2) written apart from tunio/ipv4_fragment
// to check its output in tests and the fuzzer. Fragments must arrive in order and
// back to back (what a fragmenter emits); every check that fails names itself in `error`.
// Header-only so fuzz targets can use it without the test libs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "fakes/packet_builder.h"

namespace qeli::test {

struct Reassembled {
  std::string error;                 // empty when every fragment was consistent
  PacketBytes first_header;          // the first fragment's whole IP header
  std::vector<PacketBytes> headers;  // every fragment's header, in order
  PacketBytes data;                  // the payloads, concatenated
  std::size_t offset = 0;            // the first fragment's offset, bytes
  bool more = false;                 // MF of the last fragment
  /// The datagram as one packet: the first header and all the data (total length and
  /// header checksum rewritten, offset and MF as the first/last fragments say).
  PacketBytes packet() const {
    PacketBytes p = first_header;
    p.insert(p.end(), data.begin(), data.end());
    wr16(&p[2], static_cast<std::uint32_t>(p.size()));
    wr16(&p[6], static_cast<std::uint32_t>((more ? 0x2000 : 0) | (offset / 8)));
    fix_ipv4_checksum(p);
    return p;
  }
};

/// Reassembles `frags`, each of which must be ≤ `mtu` bytes.
inline Reassembled reassemble(const std::vector<PacketBytes>& frags, std::size_t mtu) {
  Reassembled r;
  auto bad = [&](std::size_t i, const char* what) {
    r.error = "fragment " + std::to_string(i) + ": " + what;
    return r;
  };
  if (frags.empty()) return bad(0, "none");
  for (std::size_t i = 0; i < frags.size(); ++i) {
    const PacketBytes& f = frags[i];
    if (f.size() < 20 || (f[0] >> 4) != 4) return bad(i, "not IPv4");
    const std::size_t ihl = static_cast<std::size_t>(f[0] & 0x0f) * 4;
    if (ihl < 20 || ihl > f.size()) return bad(i, "bad IHL");
    if (rd16(&f[2]) != f.size()) return bad(i, "total length is not the packet's size");
    if (f.size() > mtu) return bad(i, "larger than the MTU");
    if (ref_fold(ref_sum(f.data(), ihl)) != 0xffff) return bad(i, "header checksum");
    const std::uint16_t fo = rd16(&f[6]);
    if ((fo & 0x4000) != 0) return bad(i, "DF set on a fragment");
    const bool mf = (fo & 0x2000) != 0;
    const std::size_t off = std::size_t{fo & 0x1fffu} * 8;
    const std::size_t len = f.size() - ihl;
    if (i == 0) {
      r.first_header.assign(f.begin(), f.begin() + static_cast<std::ptrdiff_t>(ihl));
      r.offset = off;
    } else {
      const PacketBytes& h = r.first_header;
      // id, protocol and both addresses name the datagram; TOS and TTL are copied.
      if (std::memcmp(&f[1], &h[1], 1) != 0 || std::memcmp(&f[4], &h[4], 2) != 0 ||
          std::memcmp(&f[8], &h[8], 2) != 0 || std::memcmp(&f[12], &h[12], 8) != 0) {
        return bad(i, "a header field differs from the first fragment's");
      }
      if (off != r.offset + r.data.size()) return bad(i, "offset is not where the last ended");
    }
    const bool last = i + 1 == frags.size();
    if (!last && !mf) return bad(i, "MF clear before the last fragment");
    if (!last && len % 8 != 0) return bad(i, "payload not a multiple of 8 before the last");
    r.headers.emplace_back(f.begin(), f.begin() + static_cast<std::ptrdiff_t>(ihl));
    r.data.insert(r.data.end(), f.begin() + static_cast<std::ptrdiff_t>(ihl), f.end());
    r.more = mf;
  }
  return r;
}

}  // namespace qeli::test
