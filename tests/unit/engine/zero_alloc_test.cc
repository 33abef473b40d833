// Zero allocations per packet in the steady state (issue 8): the whole TCP data path —
// batch fill, in-place seal, writev, read, deframe, AEAD open, replay window, GSO chunk
// reassembly and re-validation — run through a counting global allocator that also
// counts every OpenSSL allocation. Warm-up
// iterations may allocate (first-use growth); the counted ones may not.
#include <openssl/crypto.h>

#include <gtest/gtest.h>

#include "fakes/record_loop.h"
#include "support/counting_allocator.h"

namespace qeli::test {
namespace {

void expect_no_steady_state_allocations(RecordLoop& loop) {
  ASSERT_TRUE(loop.ready());
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(loop.run_once());  // warm-up
  const AllocationWindow window;
  for (int i = 0; i < 200; ++i) ASSERT_TRUE(loop.run_once()) << "iteration " << i;
  EXPECT_EQ(window.allocations(), 0U);
}

TEST(ZeroAlloc, CountingAllocatorSeesAnAllocation) {
  ASSERT_TRUE(openssl_counting_active()) << "OpenSSL allocated before the hook was installed";
  const AllocationWindow window;
  auto p = std::make_unique<int>(1);
  EXPECT_EQ(window.allocations(), 1U) << "the counting allocator is not linked in";
  void* q = OPENSSL_malloc(16);
  OPENSSL_free(q);
  EXPECT_EQ(window.allocations(), 2U) << "OpenSSL's allocations are not counted";
}

TEST(ZeroAlloc, MtuPacketsSealFrameDeframeOpen) {
  RecordLoop loop(32, 0, 1400);
  expect_no_steady_state_allocations(loop);
  EXPECT_EQ(loop.received().packet(31).size(), 1400U);
  EXPECT_TRUE(loop.intact(0));
  EXPECT_TRUE(loop.intact(31));
}

TEST(ZeroAlloc, MtuPacketsWithPadding) {
  RecordLoop loop(32, 0, 1400, tunnel::PaddingPolicy{true, 16, 256, true, 1.0});
  expect_no_steady_state_allocations(loop);
}

TEST(ZeroAlloc, GsoSuperPacketsCarriedWhole) {
  RecordLoop loop(8, 1, 1400);
  expect_no_steady_state_allocations(loop);
  EXPECT_EQ(loop.received().packet(8).size(), 65535U);
  EXPECT_TRUE(loop.intact(8));
  EXPECT_EQ(loop.received().meta(8).type, tunio::GsoType::tcp4);
  EXPECT_EQ(loop.receiver_counters().get(tunnel::SessionCounter::kDropBadGso), 0U);
}

// The same path with TCP obfs under the records: the XOR stream in place, and the
// WebSocket frames written into the batch's headroom and masked in place; as 0.7.16
// speaks it and between two of ours (only the records' headers keyed).
TEST(ZeroAlloc, ObfsStreamAndWebSocketFrames) {
  for (const auto carrier : {LoopCarrier::kObfs, LoopCarrier::kObfsWebSocket,
                             LoopCarrier::kObfsHeaderXor, LoopCarrier::kObfsWebSocketHeaderXor}) {
    SCOPED_TRACE(static_cast<int>(carrier));
    RecordLoop mtu(32, 0, 1400, {}, carrier);
    expect_no_steady_state_allocations(mtu);
    EXPECT_TRUE(mtu.intact(0));
    EXPECT_TRUE(mtu.intact(31));
    RecordLoop gso(8, 1, 1400, {}, carrier);
    expect_no_steady_state_allocations(gso);
    EXPECT_TRUE(gso.intact(8));
  }
}

TEST(ZeroAlloc, AesGcmRecordsAfterAMidRunSwitch) {
  // caps::kAesGcm: ChaCha records first, then the sender switches; the receiver takes
  // both across the switch (stream rules), and the AES steady state allocates nothing.
  for (const std::size_t super : {0U, 1U}) {
    RecordLoop loop(super == 0 ? 32 : 8, super, 1400, {}, LoopCarrier::kTcp, true);
    ASSERT_TRUE(loop.ready());
    ASSERT_TRUE(loop.run_once());  // ChaCha20-Poly1305
    EXPECT_EQ(loop.sender_aead(), wire::RecordAeadKind::kChaCha20Poly1305);
    loop.switch_to_aes();
    EXPECT_EQ(loop.sender_aead(), wire::RecordAeadKind::kAes256Gcm);
    expect_no_steady_state_allocations(loop);
    EXPECT_TRUE(loop.intact(0));
    EXPECT_TRUE(loop.intact(super == 0 ? 31 : 8));
  }
}

}  // namespace
}  // namespace qeli::test
