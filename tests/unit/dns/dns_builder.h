// Builds DNS messages for the dns/ unit tests (the reader under test is never used to
// build them): queries, and answers with A, TXT and SOA records, names written in full
// or as a pointer to the question (offset 12).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/bytes.h"

namespace qeli::dns::test {

inline void put16(Bytes& b, std::uint16_t v) {
  b.push_back(static_cast<std::uint8_t>(v >> 8));
  b.push_back(static_cast<std::uint8_t>(v));
}
inline void put32(Bytes& b, std::uint32_t v) {
  put16(b, static_cast<std::uint16_t>(v >> 16));
  put16(b, static_cast<std::uint16_t>(v));
}
/// "www.Example.com" → 3www7Example3com0 (case kept).
inline void put_name(Bytes& b, std::string_view text) {
  while (!text.empty()) {
    const auto dot = text.find('.');
    const auto label = text.substr(0, dot);
    b.push_back(static_cast<std::uint8_t>(label.size()));
    b.insert(b.end(), label.begin(), label.end());
    if (dot == std::string_view::npos) break;
    text.remove_prefix(dot + 1);
  }
  b.push_back(0);
}

struct Rr {
  std::string name;  ///< empty = pointer to the question name
  std::uint16_t type = 1;
  std::uint32_t ttl = 300;
  Bytes rdata;
  std::uint16_t rclass = 1;
};

inline Rr a_record(std::uint32_t ttl, std::uint8_t last = 7) {
  return Rr{"", 1, ttl, {192, 0, 2, last}};
}
inline Rr txt_record(std::uint32_t ttl, std::size_t bytes) {
  Rr r{"", 16, ttl, {}};
  while (bytes > 0) {
    const std::size_t n = std::min<std::size_t>(bytes, 255);
    r.rdata.push_back(static_cast<std::uint8_t>(n));
    r.rdata.insert(r.rdata.end(), n, 'x');
    bytes -= n;
  }
  return r;
}
/// An SOA for `zone` with TTL `ttl` and MINIMUM `minimum` (names uncompressed).
inline Rr soa_record(std::string zone, std::uint32_t ttl, std::uint32_t minimum) {
  Rr r{std::move(zone), 6, ttl, {}};
  put_name(r.rdata, "ns.example");
  put_name(r.rdata, "admin.example");
  for (std::uint32_t v : {1U, 3600U, 600U, 86400U}) put32(r.rdata, v);
  put32(r.rdata, minimum);
  return r;
}
inline Rr opt_record(std::uint16_t udp_size, bool dnssec_ok = false) {
  Rr r{".", 41, dnssec_ok ? 0x8000U : 0U, {}};
  r.rclass = udp_size;
  return r;
}

inline void put_rr(Bytes& b, const Rr& r) {
  if (r.name.empty()) {
    b.push_back(0xC0);
    b.push_back(0x0C);
  } else if (r.name == ".") {
    b.push_back(0);
  } else {
    put_name(b, r.name);
  }
  put16(b, r.type);
  put16(b, r.rclass);
  put32(b, r.ttl);
  put16(b, static_cast<std::uint16_t>(r.rdata.size()));
  b.insert(b.end(), r.rdata.begin(), r.rdata.end());
}

struct Msg {
  std::uint16_t id = 0x1234;
  std::uint16_t flags = 0x0100;  ///< RD
  std::string qname = "www.example.com";
  std::uint16_t qtype = 1;
  std::uint16_t qclass = 1;
  std::vector<Rr> answer, authority, additional;
  Bytes build() const {
    Bytes b;
    put16(b, id);
    put16(b, flags);
    put16(b, 1);
    put16(b, static_cast<std::uint16_t>(answer.size()));
    put16(b, static_cast<std::uint16_t>(authority.size()));
    put16(b, static_cast<std::uint16_t>(additional.size()));
    put_name(b, qname);
    put16(b, qtype);
    put16(b, qclass);
    for (const auto* sec : {&answer, &authority, &additional}) {
      for (const Rr& r : *sec) put_rr(b, r);
    }
    return b;
  }
};

inline Msg query(std::string name, std::uint16_t type = 1, std::uint16_t id = 0x1234) {
  Msg m;
  m.qname = std::move(name);
  m.qtype = type;
  m.id = id;
  return m;
}
/// The answer an upstream gives to `q` (its ID, QR RD RA, rcode).
inline Msg answer_to(const Msg& q, std::uint8_t rcode = 0) {
  Msg m = q;
  m.additional.clear();
  m.flags = static_cast<std::uint16_t>(0x8000 | 0x0100 | 0x0080 | rcode);
  return m;
}

inline std::uint16_t id_of(const Bytes& m) { return static_cast<std::uint16_t>(m[0] << 8 | m[1]); }
inline std::uint16_t flags_of(const Bytes& m) {
  return static_cast<std::uint16_t>(m[2] << 8 | m[3]);
}
inline std::uint16_t count_at(const Bytes& m, std::size_t at) {
  return static_cast<std::uint16_t>(m[at] << 8 | m[at + 1]);
}

}  // namespace qeli::dns::test
