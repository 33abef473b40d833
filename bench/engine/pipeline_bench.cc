// The whole TCP data path of one direction on one core (tests/fakes/record_loop.h):
// batch fill → in-place seal → writev → read → deframe → AEAD open → replay window →
// (extension) GSO chunk reassembly and re-validation. Reports inner IP Gbit/s and
// allocations in the timed loop; any allocation fails the run (SkipWithError).
//
//   build/release/bench/engine/pipeline_bench --benchmark_repetitions=5
//       --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include "engine/traffic_pacing.h"
#include "fakes/record_loop.h"
#include "support/counting_allocator.h"

namespace qeli::test {
namespace {

// Times `step` (one batch through the loop) after two warm-up batches; any heap
// allocation in the timed loop fails the run. Reports inner IP Gbit/s.
template <typename Step>
void time_batches(benchmark::State& state, const RecordLoop& loop, Step step) {
  if (!loop.ready() || !step() || !step()) {
    state.SkipWithError("the record loop failed");
    return;
  }
  const AllocationWindow window;
  for (auto _ : state) {
    if (!step()) {
      state.SkipWithError("a batch was lost");
      return;
    }
  }
  const auto allocs = window.allocations();
  state.counters["allocs"] = static_cast<double>(allocs);
  if (allocs != 0) state.SkipWithError("heap allocation in the steady state");
  const double bits = static_cast<double>(loop.batch_bytes()) * 8.0;
  state.counters["Gbit/s"] = benchmark::Counter(
      bits * static_cast<double>(state.iterations()) / 1e9, benchmark::Counter::kIsRate);
}

// range(0) = MTU packets per batch, range(1) = 64 KiB super-packets per batch,
// range(2) = padding on (1) or off (0), range(3) = the stack under the records (0 TCP,
// 1 obfs XOR stream, 2 obfs behind WebSocket frames, 3 and 4 the same between two of
// ours: caps::kObfsHeaderXor, only the records' headers keyed), range(4) = the records'
// AEAD (0 ChaCha20-Poly1305, 1 AES-256-GCM: caps::kAesGcm).
void BM_TcpDataPath(benchmark::State& state) {
  tunnel::PaddingPolicy pad;
  if (state.range(2) != 0) pad = tunnel::PaddingPolicy{true, 16, 256, true, 1.0};
  const bool aes = state.range(4) != 0;
  RecordLoop loop(static_cast<std::size_t>(state.range(0)),
                  static_cast<std::size_t>(state.range(1)), 1400, pad,
                  static_cast<LoopCarrier>(state.range(3)), aes);
  if (aes) loop.switch_to_aes();
  time_batches(state, loop, [&] { return loop.run_once(); });
}
BENCHMARK(BM_TcpDataPath)
    ->ArgNames({"mtu_pkts", "super_pkts", "pad", "carrier", "aes"})
    ->Args({32, 0, 0, 0, 0})
    ->Args({32, 0, 0, 0, 1})
    ->Args({32, 0, 1, 0, 0})
    ->Args({0, 2, 0, 0, 0})
    ->Args({0, 2, 0, 0, 1})
    ->Args({0, 2, 1, 0, 0})
    ->Args({32, 0, 0, 1, 0})
    ->Args({0, 2, 0, 1, 0})
    ->Args({32, 0, 0, 2, 0})
    ->Args({0, 2, 0, 2, 0})
    ->Args({32, 0, 0, 3, 1})
    ->Args({0, 2, 0, 3, 1})
    ->Args({32, 0, 0, 4, 0})
    ->Args({0, 2, 0, 4, 0})
    ->Args({32, 0, 0, 4, 1})
    ->Args({0, 2, 0, 4, 1})
    ->UseRealTime();

// The sending end alone (the client's side of an upload): fill, seal, the stream layers'
// framing, into a sink that only counts (no socket). Same arguments as above, without
// padding. The lab's fake-tls is carrier 0 with aes 1; its obfs with the WebSocket front
// between two of ours, carrier 4 with aes 1.
void BM_TcpSendPath(benchmark::State& state) {
  const bool aes = state.range(3) != 0;
  RecordLoop loop(static_cast<std::size_t>(state.range(0)),
                  static_cast<std::size_t>(state.range(1)), 1400, {},
                  static_cast<LoopCarrier>(state.range(2)), aes, LoopEnds::kSendOnly);
  if (aes) loop.switch_to_aes();
  time_batches(state, loop, [&] { return loop.run_send(); });
}
BENCHMARK(BM_TcpSendPath)
    ->ArgNames({"mtu_pkts", "super_pkts", "carrier", "aes"})
    ->Apply([](benchmark::internal::Benchmark* b) {
      for (const int carrier : {0, 2, 4}) {
        for (const int aes : {0, 1}) {
          b->Args({32, 0, carrier, aes});
          b->Args({0, 2, carrier, aes});
        }
      }
    })
    ->UseRealTime();

// The per-user limits hook (engine/traffic_pacing.h) as a send loop calls it once per
// batch: sum the batch's IP bytes, charge the user's account, check the quota.
// range(0): 0 = no account (the client), 1 = an account without a rate (an unlimited
// user: usage counting only), 2 = a rate so high it never waits (the GCRA step runs).
void BM_TrafficHook(benchmark::State& state) {
  tunio::PacketBatch batch(32, 1400, 64, 64);
  std::uint8_t pkt[1400] = {0x45};
  for (int i = 0; i < 32; ++i) batch.push(ByteSpan(pkt, sizeof pkt));
  engine::TrafficAccount account(0, 0);
  if (state.range(0) == 2) account.set_rate(1'000'000'000'000ULL, 1 << 20);
  engine::TrafficAccount* a = state.range(0) == 0 ? nullptr : &account;
  const engine::StopSignal stop;
  const AllocationWindow window;
  for (auto _ : state) {
    const std::uint64_t bytes = a != nullptr ? engine::batch_bytes(batch) : 0;
    benchmark::DoNotOptimize(engine::pace_send(a, bytes, stop));
  }
  const auto allocs = window.allocations();
  state.counters["allocs"] = static_cast<double>(allocs);
  if (allocs != 0) state.SkipWithError("heap allocation in the hook");
}
BENCHMARK(BM_TrafficHook)->ArgNames({"account"})->Arg(0)->Arg(1)->Arg(2);

}  // namespace
}  // namespace qeli::test

BENCHMARK_MAIN();
