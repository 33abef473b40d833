// bench/wire_bench: PacketCodec seal/open in place, the RecordReader and WebSocket masking at
// data-plane sizes.
// Reproduce: build/release/bench/wire/wire_bench --benchmark_repetitions=3
//            --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include "crypto/random.h"
#include "wire/packet_codec.h"
#include "wire/record_reader.h"
#include "wire/ws_frame.h"

namespace qeli::wire {
namespace {

crypto::Key32 bench_key() {
  crypto::Key32 k;
  for (std::size_t i = 0; i < 32; ++i) k[i] = static_cast<std::uint8_t>(i);
  return k;
}

void BM_SealInPlace(benchmark::State& state) {
  crypto::DeterministicRng rng(1);
  PacketCodec tx(Framing::kTls, bench_key(), rng);
  const auto len = static_cast<std::size_t>(state.range(0));
  Bytes buf(record_size(Framing::kTls, len, 0), 0x45);
  for (auto _ : state) benchmark::DoNotOptimize(tx.seal_in_place(buf, len, 0).ok());
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK(BM_SealInPlace)->Arg(64)->Arg(1400)->Arg(16638);

void BM_SealOpenRoundTrip(benchmark::State& state) {
  crypto::DeterministicRng rng(1);
  PacketCodec tx(Framing::kTls, bench_key(), rng);
  PacketCodec rx(Framing::kTls, bench_key(), rng);
  const auto len = static_cast<std::size_t>(state.range(0));
  Bytes buf(record_size(Framing::kTls, len, 0), 0x45);
  for (auto _ : state) {
    auto n = tx.seal_in_place(buf, len, 0);
    benchmark::DoNotOptimize(rx.open_in_place(MutableByteSpan(buf.data(), *n)).ok());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK(BM_SealOpenRoundTrip)->Arg(1400)->Arg(16638);

void BM_RecordReader(benchmark::State& state) {
  // 64 records of 1400 bytes delivered in 4 KiB reads.
  crypto::DeterministicRng rng(1);
  PacketCodec tx(Framing::kTls, bench_key(), rng);
  Bytes stream;
  Bytes rec(record_size(Framing::kTls, 1400, 0));
  const Bytes data(1400, 0x45);
  for (int i = 0; i < 64; ++i) {
    auto n = tx.seal(data, 0, rec);
    stream.insert(stream.end(), rec.begin(), rec.begin() + static_cast<long>(*n));
  }
  RecordReader reader(Framing::kTls, kMaxRecordPayload);
  for (auto _ : state) {
    ByteSpan in = stream;
    std::size_t records = 0;
    while (!in.empty()) {
      in = in.subspan(reader.feed(in.first(std::min<std::size_t>(4096, in.size()))));
      for (auto x = reader.next(); x.status == RecordReader::Status::kRecord; x = reader.next()) {
        ++records;
      }
    }
    benchmark::DoNotOptimize(records);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * stream.size()));
}
BENCHMARK(BM_RecordReader);

// RFC 6455 masking in place (a client's frame payload), range(0) bytes starting at an
// odd address and mask phase range(1); range(2) buffers of that size walked in turn, so
// 32 × 16 KiB = 512 KiB (a write's worth of sealed GSO chunk records) comes from L2, not
// L1; range(3) the loop's form (0 = 8-byte words, the loop before 2026-12; 1 = 16-byte
// vectors; 2 = AVX2; 3 = what ws_copy_masked() picks here).
void BM_WsMask(benchmark::State& state) {
  const auto len = static_cast<std::size_t>(state.range(0));
  const auto bufs = static_cast<std::size_t>(state.range(2));
  const auto form = static_cast<WsMaskForm>(std::min<std::int64_t>(state.range(3), 2));
  if (!ws_mask_form_available(form)) {
    state.SkipWithError("not on this CPU");
    return;
  }
  Bytes buf(bufs * (len + 64) + 1, 0x45);
  const WsMask mask{0x37, 0xfa, 0x21, 0x3d};
  const auto phase = static_cast<std::uint64_t>(state.range(1));
  std::size_t k = 0;
  for (auto _ : state) {
    std::uint8_t* p = buf.data() + 1 + k * (len + 64);
    if (state.range(3) == 3) {
      ws_apply_mask(MutableByteSpan(p, len), mask, phase);
    } else {
      ws_copy_masked_as(form, p, p, len, mask, phase);
    }
    k = k + 1 == bufs ? 0 : k + 1;
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * len));
}
BENCHMARK(BM_WsMask)
    ->ArgNames({"bytes", "phase", "bufs", "form"})
    ->ArgsProduct({{1400, 16384}, {0}, {1}, {0, 1, 2, 3}})
    ->ArgsProduct({{16384}, {3}, {1}, {3}})
    ->ArgsProduct({{16384}, {0}, {32}, {0, 1, 2, 3}});

}  // namespace
}  // namespace qeli::wire

BENCHMARK_MAIN();
