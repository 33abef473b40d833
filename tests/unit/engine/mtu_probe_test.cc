// Path-MTU probing on the data path: probe_path_mtu (engine/mtu_probe_driver.h) against
// a real loopback UDP socket answered by MtuProbeResponder, with the QUIC shape and the
// obfs seal on; the fallback when nobody answers; and DatagramReceiver's handling of a
// probe / stray ack inside the session envelope (kProbe, never a counted drop).
#include <poll.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <thread>

#include "engine/mtu_probe_driver.h"
#include "engine/wire_datagram_envelope.h"
#include "fakes/datagram_ends.h"
#include "fakes/udp_loopback.h"
#include "handshake/mtu_probe_responder.h"
#include "wire/udp_frag.h"

namespace qeli::engine {
namespace {

using namespace std::chrono_literals;

wire::UdpEnvelope envelope(std::uint8_t cid0, wire::UdpObfs* obfs) {
  wire::UdpEnvelope e;
  e.quic = true;
  e.cid = {cid0, 2, 3, 4};
  e.obfs = obfs;
  return e;
}

// The server's side: opens each datagram with its envelope, answers probes (long header,
// PN 0) unless `silent`, and remembers the sizes it saw.
struct Responder {
  explicit Responder(bool silent_) : silent(silent_), sock(test::loopback_udp(false)) {
    thread = std::thread([this] { run(); });
  }
  ~Responder() { finish(); }
  /// Stops the thread; the sizes of every datagram it received.
  std::vector<std::size_t> finish() {
    stop = true;
    if (thread.joinable()) thread.join();
    return sizes;
  }
  void run() {
    wire::UdpObfs obfs(wire::derive_obfs_key("psk"));
    const wire::UdpEnvelope env = envelope(9, &obfs);
    crypto::DeterministicRng rng(5);
    handshake::MtuProbeResponder resp;
    Bytes buf(65536);
    while (!stop) {
      pollfd p{sock.fd(), POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) continue;
      transport::RecvSlot slot = transport::RecvSlot::over(buf.data(), buf.size());
      auto n = sock.recv({&slot, 1});
      if (!n.ok() || *n == 0) continue;
      sizes.push_back(slot.len);
      auto opened = wire::open_datagram(env, MutableByteSpan(slot.data, slot.len));
      if (!opened.ok() || silent) continue;
      const Bytes ack = resp.on_probe(opened->inner, std::chrono::steady_clock::now());
      if (ack.empty()) continue;
      const Bytes d = env.wrap(ack, true, 0, rng);
      const transport::OutDatagram out{d.data(), d.size(), &slot.from};
      sock.send({&out, 1});
    }
  }
  bool silent;
  transport::UdpSocket sock;
  std::atomic<bool> stop{false};
  std::vector<std::size_t> sizes;  // read after finish()
  std::thread thread;
};

// The client's side: its socket, envelope (QUIC shape + obfs seal) and the data
// sequence's next packet number.
struct Prober {
  MtuProbeReport run(const Responder& server, handshake::MtuProberConfig c, bool sealed = true) {
    return probe_path_mtu(sock, server.sock.local_address(), envelope(1, sealed ? &obfs : nullptr),
                          pn, c, stop, rng);
  }
  transport::UdpSocket sock = test::loopback_udp(false);
  wire::UdpObfs obfs{wire::derive_obfs_key("psk")};
  crypto::DeterministicRng rng{4};
  StopSignal stop;
  std::uint32_t pn = 2;
};

TEST(MtuProbeDriver, LoopbackTakesTheCeilingWithEnvelopes) {
  Prober client;
  Responder server(false);
  handshake::MtuProberConfig c;
  c.ceiling = 1400;
  const auto r = client.run(server, c);
  const auto sizes = server.finish();
  EXPECT_EQ(r.outcome, handshake::MtuProbeOutcome::kProbed);
  EXPECT_EQ(r.mtu, 1400u);
  // One round: every rung (1400 1360 1320 1280 1200, 1182 for a 1280 path, 576) at once.
  EXPECT_EQ(r.probes, 7u);
  EXPECT_EQ(client.pn, 9u) << "each probe took one packet number of the data sequence";
  // A full-size data datagram: MTU + 48 + QUIC short header 9 + obfs seal 13.
  // The responder may stop before it read the smaller probes behind the first one.
  ASSERT_GE(sizes.size(), 1u);
  EXPECT_LE(sizes.size(), 7u);
  EXPECT_EQ(sizes[0], 1400u + 48 + 9 + 13);
}

TEST(MtuProbeDriver, NoAnswerFallsBackToWhatFitsA1280PathWithinTheBudget) {
  Prober client;
  Responder server(true);
  handshake::MtuProberConfig c;
  c.ceiling = 1400;
  c.timeout = 20ms;
  c.budget = 150ms;
  const auto r = client.run(server, c);
  EXPECT_EQ(r.outcome, handshake::MtuProbeOutcome::kFallback);
  EXPECT_EQ(r.mtu, 1280u - 98) << "1280 minus record, QUIC, obfs, UDP and IP overhead";
  EXPECT_EQ(r.probes, 14u) << "two rounds of seven";
  EXPECT_GE(r.took, 40ms);
  EXPECT_LT(r.took, 1s);
}

TEST(MtuProbeDriver, StopEndsProbing) {
  Prober client;
  client.stop.stop();
  Responder server(true);
  const auto r = client.run(server, handshake::MtuProberConfig{}, false);
  EXPECT_TRUE(r.stopped);
  EXPECT_LT(r.took, 1s);
}

TEST(DatagramReceiverProbe, StrayAckIsNotADrop) {
  crypto::DeterministicRng rng(6);
  const crypto::Key32 key = wire::derive_obfs_key("psk");
  wire::UdpObfs obfs(key);
  WireDatagramEnvelope recv_env(envelope(1, nullptr), &key, 0, rng);
  tunnel::SessionCounters counters;
  const crypto::Key32 record_key{};
  test::DatagramRx receiver(wire::PacketCodec(wire::Framing::kTls, record_key, rng), counters,
                            recv_env);
  tunio::PacketBatch batch = DatagramSource::make_batch(4);
  // The server's ack (long header, PN 0) and a probe with a short header.
  const Bytes ack = envelope(9, &obfs).wrap(wire::build_mtu_probe_ack({7, 1476}), true, 0, rng);
  const Bytes probe =
      envelope(9, &obfs).wrap(wire::build_mtu_probe({8, 1476}, 1400, rng), false, 5, rng);
  // A junk fragment is still a counted drop (not a record).
  const Bytes junk = envelope(9, &obfs).wrap(wire::build_junk(30, rng), false, 6, rng);
  ASSERT_TRUE(batch.push(ack));
  ASSERT_TRUE(batch.push(probe));
  ASSERT_TRUE(batch.push(junk));
  EXPECT_EQ(receiver.open(batch, 0), DatagramOutcome::kProbe);
  auto parsed = wire::parse_mtu_probe(batch.packet(0));
  ASSERT_TRUE(parsed.ok()) << "the slot holds the de-enveloped fragment";
  EXPECT_TRUE(parsed->is_ack);
  EXPECT_EQ(parsed->probe.id, 7);
  EXPECT_EQ(receiver.open(batch, 1), DatagramOutcome::kProbe);
  EXPECT_EQ(batch.packet(1).size(), 1400u);
  EXPECT_EQ(receiver.drops().total(), 0u);
  EXPECT_EQ(receiver.probes(), 2u);
  EXPECT_EQ(receiver.open(batch, 2), DatagramOutcome::kDropped);
  EXPECT_EQ(receiver.drops().total(), 1u);
}

}  // namespace
}  // namespace qeli::engine
