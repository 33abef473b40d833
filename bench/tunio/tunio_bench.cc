// Micro-benchmarks of the TUN engine's per-packet work: batch push (the copy into a
// slot), GSO split of 64 KiB TCP super-packets, GRO coalesce of MTU-sized segments, the
// checksum, and IPv4 fragmentation for a client with a smaller MTU. Every benchmark
// counts heap allocations inside its timed loop through a replaced global operator new
// (tests/support/counting_allocator.h) and fails (SkipWithError) if there is any: steady
// state must not allocate (STYLE.md practice 7).
#include <benchmark/benchmark.h>

#include <vector>

#include "fakes/packet_builder.h"
#include "support/alloc_window.h"
#include "tunio/checksum.h"
#include "tunio/ipv4_fragment.h"
#include "tunio/offload_coalesce.h"
#include "tunio/offload_split.h"
#include "tunio/offload_validate.h"

namespace qeli::tunio {
namespace {

using bench::AllocWindow;

constexpr std::size_t kMss = 1368;  // MTU 1420, IPv4, TCP with timestamps

test::PacketBytes super_packet() {
  test::PacketSpec s;
  s.tcp_options = {1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2};
  s.payload = 64776 - 52;
  s.partial_csum = true;
  return test::build_packet(s);
}

void BM_BatchPush(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const test::AllocationWindow construction;
  PacketBatch b(n, 1500, 64);
  if (construction.allocations() != 2) {  // the buffer and the descriptors, nothing else
    state.SkipWithError("the counting allocator is not active");
    return;
  }
  const auto pkt = test::tcp4(1, 1380);
  for (std::size_t i = 0; i < n; ++i) b.push(pkt);  // warm-up: touch every slot
  AllocWindow w;
  for (auto _ : state) {
    b.clear();
    for (std::size_t i = 0; i < n; ++i) b.push(pkt);
    benchmark::DoNotOptimize(b.packet(n - 1).data());
  }
  w.finish(state);
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * n * pkt.size()));
}

// Fills a batch of n packets per iteration from 48-segment super-packets.
void BM_GsoSplit(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const auto sp = super_packet();
  auto m = validate_offload({1, 1, 52, kMss, 20, 16}, sp);
  if (!m) {
    state.SkipWithError("bad super-packet");
    return;
  }
  PacketBatch b(n, 1500, 64);
  SplitCursor cursor;
  auto fill = [&] {
    b.clear();
    while (!b.full()) {
      auto r = gso_split(sp, *m, b, cursor);
      if (r->done) cursor = {};
    }
  };
  fill();
  AllocWindow w;
  for (auto _ : state) {
    fill();
    benchmark::DoNotOptimize(b.packet(0).data());
  }
  w.finish(state);
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * n * (kMss + 52)));
}

// n in-order MTU-sized segments of one flow (plus the copy into the batch that a decrypt
// would do anyway), coalesced into <= 64 KiB groups.
void BM_GroCoalesce(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  std::vector<test::PacketBytes> segs;
  test::PacketSpec s;
  s.tcp_options = {1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2};
  s.payload = kMss;
  for (std::size_t i = 0; i < n; ++i) {
    segs.push_back(test::build_packet(s));
    s.seq += kMss;
    ++s.ip_id;
  }
  PacketBatch b(n, 65535, 64);
  GroTable t(n);
  GroStats st;
  auto run = [&] {
    b.clear();
    for (auto& p : segs) b.push(p);
    st = gro_coalesce(b, {}, t);
  };
  run();
  AllocWindow w;
  for (auto _ : state) {
    run();
    benchmark::DoNotOptimize(st);
  }
  w.finish(state);
  state.counters["groups"] = static_cast<double>(st.groups + (n - st.merged - st.groups));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * n * (kMss + 52)));
}

void BM_Checksum(benchmark::State& state) {
  std::vector<std::uint8_t> d(static_cast<std::size_t>(state.range(0)), 0x5a);
  AllocWindow w;
  for (auto _ : state) benchmark::DoNotOptimize(checksum_fold(checksum_add(d)));
  w.finish(state);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * d.size()));
}

// One non-DF UDP packet of range(0) bytes split for a 1200-byte client MTU (the
// server's downlink clamp), into a reused scratch batch.
void BM_Ipv4Fragment(benchmark::State& state) {
  const auto size = static_cast<std::size_t>(state.range(0));
  const auto pkt = test::udp4(size - 28);
  PacketBatch b(64, 1200);
  std::size_t n = 0;
  AllocWindow w;
  for (auto _ : state) {
    b.clear();
    auto r = ipv4_fragment(pkt, 1200, b);
    n = r.ok() ? *r : 0;
    benchmark::DoNotOptimize(b.packet(0).data());
  }
  w.finish(state);
  if (n == 0) state.SkipWithError("not fragmented");
  state.counters["fragments"] = static_cast<double>(n);
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * size));
}

BENCHMARK(BM_BatchPush)->RangeMultiplier(4)->Range(1, 1024);
BENCHMARK(BM_GsoSplit)->RangeMultiplier(4)->Range(1, 1024);
BENCHMARK(BM_GroCoalesce)->RangeMultiplier(4)->Range(1, 1024);
BENCHMARK(BM_Checksum)->Arg(1500)->Arg(65535);
BENCHMARK(BM_Ipv4Fragment)->Arg(1400)->Arg(9000)->Arg(16638);

}  // namespace
}  // namespace qeli::tunio

BENCHMARK_MAIN();
