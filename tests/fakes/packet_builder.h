// Packet builders for offload tests, fuzzers and benchmarks: IPv4/IPv6 TCP and UDP
// packets with valid (or deliberately broken) checksums, TCP super-packets with a partial
// checksum, and a slow, obviously-correct RFC 1071 reference checksum to check the fast
// one against. Header-only so fuzz and bench targets can use it without the test libs.
//
// Payload bytes are a function of the TCP stream position (seq + i), so a super-packet's
// payload is exactly the concatenation of its segments' payloads.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace qeli::test {

using PacketBytes = std::vector<std::uint8_t>;

inline constexpr std::uint8_t kFin = 0x01, kSyn = 0x02, kRst = 0x04, kPsh = 0x08, kAck = 0x10,
                              kUrg = 0x20, kEce = 0x40, kCwr = 0x80;

struct PacketSpec {
  int version = 4;
  std::uint8_t proto = 6;  // 6 TCP, 17 UDP
  std::array<std::uint8_t, 16> src{192, 168, 1, 1};
  std::array<std::uint8_t, 16> dst{192, 168, 1, 2};
  std::uint16_t sport = 1;
  std::uint16_t dport = 2;
  std::uint32_t seq = 1;
  std::uint32_t ack = 1;
  std::uint8_t flags = kAck;
  std::size_t payload = 100;
  std::uint8_t payload_seed = 0;  // UDP payload pattern
  std::uint16_t ip_id = 0x1234;
  std::uint8_t ttl = 64;                  // IPv6: hop limit
  std::uint8_t tos = 0;                   // IPv6: traffic class
  std::uint16_t frag = 0;                 // IPv4 flags + fragment offset
  std::vector<std::uint8_t> tcp_options;  // multiple of 4 bytes
  bool partial_csum = false;              // L4 checksum field = folded pseudo-header sum
};

inline std::uint16_t rd16(const std::uint8_t* p) {
  return static_cast<std::uint16_t>((p[0] << 8) | p[1]);
}
inline std::uint32_t rd32(const std::uint8_t* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) |
         p[3];
}
inline void wr16(std::uint8_t* p, std::uint32_t v) {
  p[0] = static_cast<std::uint8_t>(v >> 8);
  p[1] = static_cast<std::uint8_t>(v);
}
inline void wr32(std::uint8_t* p, std::uint32_t v) {
  wr16(p, v >> 16);
  wr16(p + 2, v & 0xffff);
}

/// Slow reference: 16-bit big-endian words one at a time, folded after every add.
inline std::uint32_t ref_sum(const std::uint8_t* p, std::size_t n, std::uint32_t acc = 0) {
  for (std::size_t i = 0; i + 1 < n; i += 2) {
    acc += static_cast<std::uint32_t>((p[i] << 8) | p[i + 1]);
    acc = (acc & 0xffff) + (acc >> 16);
  }
  if (n % 2) {
    acc += static_cast<std::uint32_t>(p[n - 1] << 8);
    acc = (acc & 0xffff) + (acc >> 16);
  }
  return acc;
}
inline std::uint16_t ref_fold(std::uint32_t acc) {
  while (acc >> 16) acc = (acc & 0xffff) + (acc >> 16);
  return static_cast<std::uint16_t>(acc);
}

inline std::size_t ip_header_len(const PacketBytes& p) {
  return (p[0] >> 4) == 4 ? static_cast<std::size_t>(p[0] & 0x0f) * 4 : 40;
}
inline std::uint8_t l4_proto(const PacketBytes& p) { return (p[0] >> 4) == 4 ? p[9] : p[6]; }

inline std::uint16_t ref_pseudo(const std::uint8_t* ip, std::uint8_t proto, std::uint32_t l4_len) {
  const bool v4 = (ip[0] >> 4) == 4;
  std::uint32_t acc = v4 ? ref_sum(ip + 12, 8) : ref_sum(ip + 8, 32);
  acc += proto;
  acc += l4_len >> 16;
  acc += l4_len & 0xffff;
  return ref_fold(acc);
}

/// Reference verification of the L4 checksum (and the IPv4 header checksum).
inline bool ref_checksums_ok(const std::uint8_t* ip, std::size_t len) {
  const bool v4 = (ip[0] >> 4) == 4;
  const std::size_t iph = v4 ? static_cast<std::size_t>(ip[0] & 0x0f) * 4 : 40;
  if (v4 && ref_fold(ref_sum(ip, iph)) != 0xffff) return false;
  const std::uint8_t proto = v4 ? ip[9] : ip[6];
  const std::uint32_t l4 = static_cast<std::uint32_t>(len - iph);
  return ref_fold(ref_sum(ip + iph, l4, ref_pseudo(ip, proto, l4))) == 0xffff;
}
inline bool ref_checksums_ok(const PacketBytes& p) { return ref_checksums_ok(p.data(), p.size()); }

inline std::uint8_t stream_byte(std::uint32_t pos) {
  return static_cast<std::uint8_t>(pos * 7 + 3);
}

/// Writes the L4 checksum of `p`: full (complemented) or partial (pseudo-header only).
inline void fix_l4_checksum(PacketBytes& p, bool partial = false) {
  const std::size_t iph = ip_header_len(p);
  const std::uint8_t proto = l4_proto(p);
  const std::size_t field = iph + (proto == 17 ? 6 : 16);
  const std::uint32_t l4 = static_cast<std::uint32_t>(p.size() - iph);
  wr16(&p[field], 0);
  std::uint16_t c;
  if (partial) {
    c = ref_pseudo(p.data(), proto, l4);
  } else {
    c = static_cast<std::uint16_t>(
        ~ref_fold(ref_sum(&p[iph], l4, ref_pseudo(p.data(), proto, l4))));
    if (proto == 17 && c == 0) c = 0xffff;
  }
  wr16(&p[field], c);
}

inline void fix_ipv4_checksum(PacketBytes& p) {
  if ((p[0] >> 4) != 4) return;
  const std::size_t iph = ip_header_len(p);
  wr16(&p[10], 0);
  wr16(&p[10], static_cast<std::uint16_t>(~ref_fold(ref_sum(p.data(), iph))));
}

inline PacketBytes build_packet(const PacketSpec& s) {
  const bool v4 = s.version == 4;
  const std::size_t iph = v4 ? 20 : 40;
  const std::size_t l4h = s.proto == 6 ? 20 + s.tcp_options.size() : 8;
  PacketBytes p(iph + l4h + s.payload, 0);
  std::uint8_t* ip = p.data();
  if (v4) {
    ip[0] = 0x45;
    ip[1] = s.tos;
    wr16(ip + 2, static_cast<std::uint32_t>(p.size()));
    wr16(ip + 4, s.ip_id);
    wr16(ip + 6, s.frag);
    ip[8] = s.ttl;
    ip[9] = s.proto;
    std::copy(s.src.begin(), s.src.begin() + 4, ip + 12);
    std::copy(s.dst.begin(), s.dst.begin() + 4, ip + 16);
  } else {
    ip[0] = static_cast<std::uint8_t>(0x60 | (s.tos >> 4));
    ip[1] = static_cast<std::uint8_t>(s.tos << 4);
    wr16(ip + 4, static_cast<std::uint32_t>(p.size() - 40));
    ip[6] = s.proto;
    ip[7] = s.ttl;
    std::copy(s.src.begin(), s.src.end(), ip + 8);
    std::copy(s.dst.begin(), s.dst.end(), ip + 24);
  }
  std::uint8_t* l4 = ip + iph;
  wr16(l4, s.sport);
  wr16(l4 + 2, s.dport);
  if (s.proto == 6) {
    wr32(l4 + 4, s.seq);
    wr32(l4 + 8, s.ack);
    l4[12] = static_cast<std::uint8_t>((l4h / 4) << 4);
    l4[13] = s.flags;
    wr16(l4 + 14, 65535);
    std::copy(s.tcp_options.begin(), s.tcp_options.end(), l4 + 20);
    for (std::size_t i = 0; i < s.payload; ++i) {
      l4[l4h + i] = stream_byte(s.seq + static_cast<std::uint32_t>(i));
    }
  } else {
    wr16(l4 + 4, static_cast<std::uint32_t>(l4h + s.payload));
    for (std::size_t i = 0; i < s.payload; ++i) {
      l4[l4h + i] = static_cast<std::uint8_t>(s.payload_seed + i * 13);
    }
  }
  fix_ipv4_checksum(p);
  fix_l4_checksum(p, s.partial_csum);
  return p;
}

inline PacketSpec v6(PacketSpec s) {
  s.version = 6;
  s.src = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  s.dst = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
  return s;
}

inline PacketBytes tcp4(std::uint32_t seq, std::size_t payload, std::uint8_t flags = kAck) {
  PacketSpec s;
  s.seq = seq;
  s.payload = payload;
  s.flags = flags;
  return build_packet(s);
}
inline PacketBytes tcp6(std::uint32_t seq, std::size_t payload, std::uint8_t flags = kAck) {
  PacketSpec s;
  s.seq = seq;
  s.payload = payload;
  s.flags = flags;
  return build_packet(v6(s));
}
inline PacketBytes udp4(std::size_t payload, std::uint16_t sport = 1, std::uint8_t seed = 0) {
  PacketSpec s;
  s.proto = 17;
  s.payload = payload;
  s.sport = sport;
  s.payload_seed = seed;
  return build_packet(s);
}
inline PacketBytes udp6(std::size_t payload, std::uint16_t sport = 1, std::uint8_t seed = 0) {
  PacketSpec s;
  s.proto = 17;
  s.payload = payload;
  s.sport = sport;
  s.payload_seed = seed;
  return build_packet(v6(s));
}

}  // namespace qeli::test
