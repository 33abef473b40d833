// bench/udp_bench: the per-datagram UDP layers — obfs seal/open (ChaCha20 XOR in place),
// QUIC short-header wrap/parse, classification, and reassembling a 2-fragment hello.
// Reproduce: build/release/bench/wire/udp_bench --benchmark_repetitions=3
//            --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include "crypto/random.h"
#include "wire/quic_envelope.h"
#include "wire/udp_frag.h"
#include "wire/udp_obfs.h"

namespace qeli::wire {
namespace {

void BM_ObfsSealOpen(benchmark::State& state) {
  UdpObfs obfs("bench");
  const std::array<std::uint8_t, 12> nonce{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  Bytes d(kObfsSealSize + static_cast<std::size_t>(state.range(0)), 0x17);
  for (auto _ : state) {
    obfs.seal(nonce, 5, d);
    benchmark::DoNotOptimize(obfs.open(d).ok());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0) * 2);
}
BENCHMARK(BM_ObfsSealOpen)->Arg(64)->Arg(1400);

void BM_ObfsSealSystemRng(benchmark::State& state) {
  // The production form: nonce and flag bits drawn from the system CSPRNG per datagram.
  UdpObfs obfs("bench");
  Bytes d(kObfsSealSize + 1400, 0x17);
  for (auto _ : state) obfs.seal(d, crypto::system_rng());
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * 1400);
}
BENCHMARK(BM_ObfsSealSystemRng);

void BM_QuicShortWrapParse(benchmark::State& state) {
  const QuicCid cid{1, 2, 3, 4};
  Bytes d(kQuicShortHeaderSize + 1400, 0x17);
  std::uint32_t pn = 2;
  for (auto _ : state) {
    auto n = wrap_quic_short(cid, pn++, ByteSpan(d).subspan(kQuicShortHeaderSize), d);
    benchmark::DoNotOptimize(parse_quic(ByteSpan(d).first(*n)).ok());
  }
}
BENCHMARK(BM_QuicShortWrapParse);

void BM_Classify(benchmark::State& state) {
  const Bytes d{0x17, 0x03, 0x03, 0x05, 0x78};
  for (auto _ : state) benchmark::DoNotOptimize(classify_datagram(d));
}
BENCHMARK(BM_Classify);

void BM_ReassembleHello(benchmark::State& state) {
  const std::vector<Bytes> frags =
      fragment_message(udp_msg::kClientHello, Bytes(1454, 0x16)).value();
  Reassembler re(udp_msg::kClientHello);
  for (auto _ : state) {
    for (const Bytes& f : frags) benchmark::DoNotOptimize(re.add(f, Instant{}).ok());
  }
}
BENCHMARK(BM_ReassembleHello);

}  // namespace
}  // namespace qeli::wire

BENCHMARK_MAIN();
