// Fuzzes the write side: up to 64 arbitrary packets through gro_coalesce. Invariants:
//   - every input is accounted for exactly once (sum of logical counts == inputs) and
//     there are never more outputs than inputs;
//   - a packet that was merged (into or as a group head) had valid checksums on input;
//   - an untouched packet is byte-identical to its input;
//   - every group passes the validation gate, is <= 65535 bytes, and splits back into
//     segments of <= hdr_len + gso_size bytes with valid checksums.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "fakes/packet_builder.h"
#include "tunio/offload_coalesce.h"
#include "tunio/offload_split.h"
#include "tunio/offload_validate.h"

using namespace qeli::tunio;

namespace {
// Reports the broken invariant's line before aborting, so a crash names it.
void check_at(bool ok, int line) {
  if (!ok) {
    std::fprintf(stderr, "invariant broken at %s:%d\n", __FILE__, line);
    std::abort();
  }
}
#define check(x) check_at((x), __LINE__)
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static PacketBatch batch(64, 65535, 16);
  static PacketBatch segs(256, 65535);
  static GroTable table(64);
  static std::vector<std::vector<std::uint8_t>> in;
  if (size < 1) return 0;
  GroOptions opt;
  opt.tcp = (data[0] & 1) == 0;
  opt.udp = (data[0] & 2) != 0;
  opt.max_udp_segments = (data[0] & 4) ? 128 : 64;
  std::size_t at = 1;
  batch.clear();
  in.clear();
  // Packets: 2-byte big-endian length, then the bytes.
  while (at + 2 <= size && !batch.full()) {
    const std::size_t len = std::min<std::size_t>(qeli::test::rd16(data + at), size - at - 2);
    at += 2;
    in.emplace_back(data + at, data + at + len);
    check(batch.push(in.back()));
    at += len;
  }
  const std::size_t n = batch.size();
  gro_coalesce(batch, opt, table);
  std::size_t logical = 0, outputs = 0;
  for (std::size_t i = 0; i < n; ++i) {
    logical += batch.logical(i);
    const auto p = batch.packet(i);
    const GsoMetadata& m = batch.meta(i);
    if (batch.logical(i) != 0) ++outputs;
    if (batch.logical(i) == 0 || !m.is_plain()) {
      check(qeli::test::ref_checksums_ok(in[i].data(), in[i].size()));
    }
    if (batch.logical(i) == 0) continue;
    check(p.size() <= 65535);
    if (m.is_plain()) {
      check(batch.logical(i) == 1);
      check(p.size() == in[i].size() && std::memcmp(p.data(), in[i].data(), p.size()) == 0);
      continue;
    }
    auto v = revalidate(m, p);
    check(v.ok());
    check(segment_count(m, p.size()) == batch.logical(i));
    if (is_udp(m.type)) check(batch.logical(i) <= opt.max_udp_segments);
    segs.clear();
    check(gso_split_all(p, m, segs).ok());
    for (std::size_t j = 0; j < segs.size(); ++j) {
      check(segs.packet(j).size() <= std::size_t{m.hdr_len} + m.gso_size);
      check(qeli::test::ref_checksums_ok(segs.packet(j).data(), segs.packet(j).size()));
    }
  }
  check(logical == n);
  check(outputs <= n);
  return 0;
}
