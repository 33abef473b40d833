// How a server session learns its client's capabilities and ends: which close frame the
// farewell hook yields for each way a session ends, and what the log line says.
#include "server/session_end.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "fakes/receive_frame.h"
#include "handshake/types.h"
#include "wire/session_close.h"

namespace qeli::server {
namespace {

using tunnel::SessionEnd;
namespace caps = handshake::caps;

std::shared_ptr<Session> make_session() {
  return std::make_shared<Session>(1, "alice", "alice:01", 0x0a4d0002, transport::SockAddr{},
                                   engine::SessionInbox::Geometry{4, 1500, 0, 0});
}

// The client's capability frame as the server session's receive side handles it.
void answer_caps(Session& s, std::uint32_t offered, std::uint32_t client) {
  tunnel::ReceiverParams rp;
  rp.offered_caps = offered;
  rp.on_control = [&s](const wire::ControlFrame& f) {
    on_client_control(s, s.peer_state, f, 1400, "test");
  };
  test::receive_frame(std::move(rp), s.counters, s.peer_state, wire::build_capabilities(client));
}

TEST(SessionEnd, OfferDependsOnTheCarrierAndTheEnvironment) {
  ::unsetenv("QELI_DISABLE_EXTENSIONS");
  const auto stream = handshake::our_extensions(handshake::Carrier::kStream);
  const auto datagram = handshake::our_extensions(handshake::Carrier::kDatagram);
  EXPECT_NE(stream & caps::kCloseNotify, 0U);
  EXPECT_NE(stream & caps::kGsoSuperPackets, 0U);
  EXPECT_NE(datagram & caps::kCloseNotify, 0U);
  EXPECT_EQ(datagram & caps::kGsoSuperPackets, 0U) << "super-packets are stream-only";
  ::setenv("QELI_DISABLE_EXTENSIONS", "1", 1);
  EXPECT_EQ(handshake::our_extensions(handshake::Carrier::kStream), 0U);
  EXPECT_EQ(handshake::our_extensions(handshake::Carrier::kDatagram), 0U);
  ::unsetenv("QELI_DISABLE_EXTENSIONS");
}

TEST(SessionEnd, CapabilitiesAreTheIntersectionOfOfferAndAnswer) {
  auto s = make_session();
  answer_caps(*s, caps::kCapabilityExchange | caps::kCloseNotify,
              caps::kCapabilityExchange | caps::kCloseNotify | caps::kGsoSuperPackets);
  EXPECT_TRUE(s->peer_state.close_notify.load());
  EXPECT_FALSE(s->peer_state.gso.load()) << "not offered";
  auto t = make_session();
  answer_caps(*t, caps::kCapabilityExchange | caps::kCloseNotify | caps::kGsoSuperPackets,
              caps::kCapabilityExchange | caps::kGsoSuperPackets);
  EXPECT_FALSE(t->peer_state.close_notify.load()) << "not answered";
  EXPECT_TRUE(t->peer_state.gso.load());
}

TEST(SessionEnd, ClientInfoIsRecorded) {
  auto s = make_session();
  const Bytes f = wire::build_client_info("0.7.16", "linux");
  on_client_control(*s, s->peer_state, wire::parse_control_frame(f).value(), 1400, "test");
  EXPECT_EQ(s->client_version, "0.7.16");
  EXPECT_EQ(s->client_platform, "linux");
}

TEST(SessionEnd, FarewellTellsAClientThatCanHearItWhy) {
  auto s = make_session();
  auto farewell = farewell_for(*s);
  EXPECT_TRUE(farewell(SessionEnd::kStopped).empty()) << "no capability yet";
  s->peer_state.close_notify = true;
  EXPECT_TRUE(farewell(SessionEnd::kStopped).empty()) << "stopped without a reason";
  s->end(wire::CloseReason::kKicked);
  EXPECT_EQ(to_hex(farewell(SessionEnd::kStopped)), "c19b800101");
  // The peer or the network ended it: nothing to say.
  for (auto e : {SessionEnd::kPeerClosed, SessionEnd::kSocketError, SessionEnd::kLiveness,
                 SessionEnd::kBadRecord}) {
    EXPECT_TRUE(farewell(e).empty()) << tunnel::to_string(e);
  }
}

TEST(SessionEnd, IdleTimeoutIsRecordedAndAnnounced) {
  auto s = make_session();
  s->peer_state.close_notify = true;
  EXPECT_EQ(to_hex(farewell_for(*s)(SessionEnd::kIdle)), "c19b800105");
  EXPECT_EQ(s->close_reason(), wire::CloseReason::kIdle);
  // Recorded even for a client without the extension, so the log says "idle timeout".
  auto old = make_session();
  EXPECT_TRUE(farewell_for(*old)(SessionEnd::kIdle).empty());
  EXPECT_EQ(describe_end(*old, SessionEnd::kIdle), "idle timeout");
}

TEST(SessionEnd, LogNamesTheRealReason) {
  auto s = make_session();
  EXPECT_EQ(describe_end(*s, SessionEnd::kStopped), "stopped");
  EXPECT_EQ(describe_end(*s, SessionEnd::kLiveness), "liveness deadline passed");
  s->end(wire::CloseReason::kSuperseded);
  EXPECT_EQ(describe_end(*s, SessionEnd::kStopped),
            "superseded by a newer session of the same device");
  // A session the peer ended first keeps the peer's reason.
  EXPECT_EQ(describe_end(*s, SessionEnd::kPeerClosed), "peer closed the connection");
  auto k = make_session();
  k->end(wire::CloseReason::kKicked);
  EXPECT_EQ(describe_end(*k, SessionEnd::kStopped), "kicked by the operator");
  auto d = make_session();
  d->end(wire::CloseReason::kShutdown);
  EXPECT_EQ(describe_end(*d, SessionEnd::kStopped), "the server is stopping");
}

TEST(SessionEnd, ClientGoodbyeEndsTheSessionWithoutAnAnswer) {
  const Bytes bye = wire::build_session_close(wire::CloseReason::kClientStopping);
  const auto frame = wire::parse_control_frame(bye).value();
  // A client that did not take the extension: its frame is ignored.
  auto old = make_session();
  on_client_control(*old, old->peer_state, frame, 1400, "test");
  EXPECT_FALSE(old->stop.stopped());
  EXPECT_FALSE(old->close_reason());

  auto s = make_session();
  answer_caps(*s, caps::kCapabilityExchange | caps::kCloseNotify,
              caps::kCapabilityExchange | caps::kCloseNotify);
  on_client_control(*s, s->peer_state, frame, 1400, "test");
  EXPECT_TRUE(s->stop.stopped());
  EXPECT_EQ(s->close_reason(), wire::CloseReason::kClientStopping);
  // No close frame goes back to a client that is leaving.
  EXPECT_TRUE(farewell_for(*s)(SessionEnd::kStopped).empty());
  EXPECT_EQ(describe_end(*s, SessionEnd::kStopped), "the client is stopping");
  // On TCP its FIN may be seen first: the log still names the goodbye.
  EXPECT_EQ(describe_end(*s, SessionEnd::kPeerClosed), "the client is stopping");
  // A reason recorded before (the operator kicked it) is kept.
  auto k = make_session();
  k->peer_state.close_notify = true;
  k->end(wire::CloseReason::kKicked);
  on_client_control(*k, k->peer_state, frame, 1400, "test");
  EXPECT_EQ(k->close_reason(), wire::CloseReason::kKicked);
}

}  // namespace
}  // namespace qeli::server
