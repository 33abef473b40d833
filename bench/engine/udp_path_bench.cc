// The UDP data path end to end on one core, over loopback: a TUN batch is sealed one
// record per datagram (tunnel::Sender), sent with sendmmsg (DatagramFramer) — with
// UDP_SEGMENT or without — received with recvmmsg (UDP GRO or not), opened in place
// (tunnel::Receiver) and coalesced back into GSO packets for the TUN (DatagramFramer). Inputs: 64
// MTU-sized packets of one TCP flow per batch, or one 64 KiB TCP super-packet (48 segments) as a
// TUN with TSO reads it. Reports inner Gbit/s and packets/s, and fails a run that allocates in its
// timed loop (bench/support/alloc_window.h).
//
//   build/release/bench/engine/udp_path_bench --benchmark_min_time=2
#include <poll.h>

#include <benchmark/benchmark.h>

#include "fakes/datagram_ends.h"
#include "fakes/packet_builder.h"
#include "fakes/udp_loopback.h"
#include "support/alloc_window.h"
#include "tunio/offload_validate.h"

namespace qeli::engine {
namespace {

constexpr std::size_t kMss = 1368;  // MTU 1420, IPv4, TCP with timestamps
constexpr std::size_t kMtu = 1420;

test::PacketSpec tcp_spec() {
  test::PacketSpec s;
  s.tcp_options = {1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2};
  return s;
}

// state.range(0): 1 = UDP GSO/GRO on the sockets, 0 = off.
// state.range(1): 0 = 64 MTU-sized packets per batch, 1 = one 64 KiB super-packet.
void BM_UdpPath(benchmark::State& state) {
  const bool offload = state.range(0) != 0;
  const bool super = state.range(1) != 0;
  transport::UdpSocket a = test::loopback_udp(offload);
  transport::UdpSocket b = test::loopback_udp(offload);
  const transport::SockAddr a_addr = a.local_address(), b_addr = b.local_address();
  const crypto::Key32 key;
  const std::array<std::uint8_t, 4> seed = {1, 2, 3, 4};
  crypto::DeterministicRng rng(1);
  tunnel::SessionCounters sent, got;
  const tunnel::PaddingPolicy padding{true, 32, 512, true, 1.0};  // 0.7.16 defaults
  test::DatagramTx writer(wire::PacketCodec(wire::Framing::kTls, key.span(), seed), padding, kMtu,
                          rng, sent);
  test::DatagramRx receiver(wire::PacketCodec(wire::Framing::kTls, key.span(), seed), got);
  tunio::PacketBatch out(64, 65535, test::DatagramTx::headroom(no_envelope()),
                         test::DatagramTx::tailroom(padding, no_envelope()));
  tunio::PacketBatch in = DatagramSource::make_batch(128);
  StopSignal stop;

  std::vector<test::PacketBytes> input;
  tunio::GsoMetadata meta;
  std::size_t logical = 0;
  if (super) {
    test::PacketSpec s = tcp_spec();
    s.payload = 64776 - 52;
    s.partial_csum = true;
    input.push_back(test::build_packet(s));
    auto m = tunio::validate_offload({1, 1, 52, kMss, 20, 16}, input[0]);
    if (!m) {
      state.SkipWithError("bad super-packet");
      return;
    }
    meta = *m;
    logical = 48;
  } else {
    test::PacketSpec s = tcp_spec();
    s.payload = kMss;
    for (int i = 0; i < 64; ++i) {
      input.push_back(test::build_packet(s));
      s.seq += kMss;
      ++s.ip_id;
    }
    logical = 64;
  }
  std::uint64_t lost = 0;
  auto once = [&] {
    out.clear();
    for (const auto& p : input) out.push(p, super ? meta : tunio::GsoMetadata{});
    if (writer.send(a, b_addr, out, stop) != WriteStatus::kOk) std::abort();
    std::size_t n = 0;
    while (n < logical) {
      in.clear();
      auto r = receiver.receive(b, a_addr, in);
      if (!r.ok()) {
        pollfd p{b.fd(), POLLIN, 0};
        if (::poll(&p, 1, 1000) <= 0) {
          lost += logical - n;  // the kernel dropped some: count, do not hang
          return;
        }
        continue;
      }
      for (std::size_t i = 0; i < in.size(); ++i) n += in.logical(i);
    }
  };
  for (int i = 0; i < 16; ++i) once();  // warm-up: every slot and socket buffer touched
  bench::AllocWindow w;
  for (auto _ : state) once();
  w.finish(state);
  // Inner bytes as the TUN would see them: MTU-sized segments (a super-packet's last
  // segment is short).
  const double batch_bytes =
      super ? static_cast<double>(input[0].size() + (logical - 1) * 52) : 64.0 * (kMss + 52);
  const auto packets = static_cast<double>(state.iterations() * logical);
  const double bytes = batch_bytes * static_cast<double>(state.iterations());
  state.SetItemsProcessed(static_cast<std::int64_t>(packets));
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes));
  state.counters["Gbit/s"] = benchmark::Counter(bytes * 8 / 1e9, benchmark::Counter::kIsRate);
  state.counters["lost"] = static_cast<double>(lost);
  state.counters["gso_msgs/batch"] = static_cast<double>(a.counters().send_gso_messages) /
                                     static_cast<double>(state.iterations() + 16);
  state.counters["gro_reads/batch"] = static_cast<double>(b.counters().recv_gro_reads) /
                                      static_cast<double>(state.iterations() + 16);
  state.counters["drops"] = static_cast<double>(receiver.drops().total());
}

BENCHMARK(BM_UdpPath)
    ->ArgNames({"gso", "super"})
    ->Args({0, 0})
    ->Args({1, 0})
    ->Args({0, 1})
    ->Args({1, 1})
    ->UseRealTime();

}  // namespace
}  // namespace qeli::engine

BENCHMARK_MAIN();
