// Fuzzes the UDP offload planning and splitting (transport/udp_gso.h) with invariants:
//   plan_gso:  the messages cover a prefix of the input, in order, without gaps; every
//              message but a lone datagram has <= max_segments datagrams, <= the byte cap,
//              equal sizes except a shorter last one, one destination, and gso_size = the
//              first size (0 exactly for single datagrams);
//   split_gro: the datagrams written to the front slots concatenate to the bytes of the
//              reads that were not truncated (all of them when it succeeds, a prefix when
//              it stops with an error); none is longer than its read's gso_size or its
//              slot; no datagram is emitted past the read it came from.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "transport/udp_gso.h"

using namespace qeli::transport;

namespace {

void check_at(bool ok, int line) {
  if (!ok) {
    std::fprintf(stderr, "invariant broken at %s:%d\n", __FILE__, line);
    std::abort();
  }
}
#define check(x) check_at((x), __LINE__)

struct Reader {
  const std::uint8_t* p;
  std::size_t n;
  std::uint8_t u8() {
    if (n == 0) return 0;
    --n;
    return *p++;
  }
  std::uint16_t u16() { return static_cast<std::uint16_t>(u8() << 8 | u8()); }
};

void fuzz_plan(Reader& in) {
  static const std::uint8_t data[70000] = {};
  const SockAddr dst[2] = {SockAddr::ipv4(0x7f000001, 1), SockAddr::ipv4(0x7f000001, 2)};
  GsoLimits limits;
  limits.max_segments = 1 + in.u8() % 128;
  limits.max_bytes = 1 + in.u16();
  const bool gso = in.u8() & 1;
  const std::size_t count = in.u8() % 200;
  std::vector<OutDatagram> d(count);
  for (auto& x : d) {
    const std::uint8_t shape = in.u8();
    x.len = shape & 0x80 ? in.u16() : shape & 0x3f;  // many equal small sizes, some large
    x.data = data;
    x.to = &dst[(shape >> 6) & 1];
  }
  std::vector<GsoMessage> out(1 + in.u8() % 64);
  const GsoPlan plan = plan_gso(d, gso, limits, out);
  check(plan.messages <= out.size());
  std::size_t next = 0;
  for (std::size_t k = 0; k < plan.messages; ++k) {
    const GsoMessage& m = out[k];
    check(m.first == next && m.count >= 1 && m.first + m.count <= d.size());
    std::size_t bytes = 0;
    for (std::size_t j = m.first; j < m.first + m.count; ++j) {
      bytes += d[j].len;
      check(*d[j].to == *d[m.first].to);
      if (j + 1 < m.first + m.count) check(d[j].len == d[m.first].len);
      check(d[j].len <= d[m.first].len);
    }
    check(bytes == m.bytes);
    if (m.count > 1) {
      check(gso && m.gso_size == d[m.first].len && m.count <= limits.max_segments);
      check(bytes <= limits.max_bytes && bytes <= kMaxUdpPayloadV4);
    } else {
      check(m.gso_size == 0);
    }
    next += m.count;
  }
  check(next == plan.datagrams && plan.datagrams <= d.size());
  if (plan.messages < out.size()) check(plan.datagrams == d.size());
}

void fuzz_split(Reader& in) {
  constexpr std::size_t kMaxSlots = 16;
  static std::vector<std::uint8_t> pool(kMaxSlots * kGroReadSize);
  const std::size_t slots_n = 1 + in.u8() % kMaxSlots;
  const std::size_t reads = 1 + in.u8() % slots_n;
  const std::size_t first = slots_n - reads;
  const std::size_t head_cap = 1 + in.u16() % 4000;
  std::vector<RecvSlot> slots(slots_n);
  for (std::size_t i = 0; i < slots_n; ++i) {
    slots[i] = RecvSlot::over(pool.data() + i * kGroReadSize, i < first ? head_cap : kGroReadSize);
  }
  std::vector<std::uint8_t> expect;  // the bytes of the reads that are not truncated
  std::vector<std::size_t> seg;      // each read's segment size
  std::uint8_t fill = 0;
  for (std::size_t i = first; i < slots_n; ++i) {
    RecvSlot& s = slots[i];
    s.len = in.u16() % (kGroReadSize + 1);
    s.gso_size = in.u16() % 3000;
    s.truncated = (in.u8() & 7) == 0;
    s.from = SockAddr::ipv4(0x0a000000u + static_cast<std::uint32_t>(i), 9);
    for (std::size_t b = 0; b < s.len; ++b) s.data[b] = fill++;
    if (!s.truncated) expect.insert(expect.end(), s.data, s.data + s.len);
    seg.push_back(s.gso_size == 0 ? s.len : s.gso_size);
  }
  const SplitResult r = split_gro(slots, first, reads);
  check(r.datagrams <= slots_n);
  std::vector<std::uint8_t> got;
  std::size_t max_seg = 0;
  for (auto x : seg) max_seg = std::max(max_seg, x);
  for (std::size_t i = 0; i < r.datagrams; ++i) {
    check(slots[i].len <= slots[i].capacity && slots[i].len <= max_seg && slots[i].gso_size == 0);
    got.insert(got.end(), slots[i].data, slots[i].data + slots[i].len);
  }
  check(got.size() <= expect.size());
  check(std::memcmp(got.data(), expect.data(), got.size()) == 0);
  if (r.ok) check(got.size() == expect.size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Reader in{data, size};
  if (in.u8() & 1) {
    fuzz_plan(in);
  } else {
    fuzz_split(in);
  }
  return 0;
}
