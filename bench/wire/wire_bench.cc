// bench/wire_bench: PacketCodec seal/open in place and the RecordReader at data-plane sizes.
// Reproduce: build/release/bench/wire/wire_bench --benchmark_repetitions=3
//            --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include "crypto/random.h"
#include "wire/packet_codec.h"
#include "wire/record_reader.h"

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

}  // namespace
}  // namespace qeli::wire

BENCHMARK_MAIN();
