// InMemoryTunnel: a whole qeli client and a whole server session connected in memory —
// the carrier's set-up (an outer Stream layer's flight, if the mode has one), the real
// qeli handshake (TCP flight or the fragmented UDP one with its QUIC shape / obfs seal),
// then a tunnel::Session per side run by the engine's one session loop
// (engine::run_session) over a StreamFramer or DatagramFramer, each side with its own
// ChannelTun. Everything below the engine is a fake: MemoryStreamPair or MemoryNet (with
// impairments added after the handshake), so it runs unprivileged, without a network.
//
//   test::InMemoryTunnel t(spec);            // handshake done, sessions running
//   t.client_tun.inject(pkt);  t.server_tun.wait_for(1, 5s);
//   t.stop_server();  → t.client_end() == kClosedByPeer (close extension)
//
// Header-only; needs qeli::engine and qeli::tunnel.
#pragma once

#include <poll.h>

#include <array>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "crypto/x25519.h"
#include "engine/datagram_framer.h"
#include "engine/flight_driver.h"
#include "engine/session_loop.h"
#include "engine/stream_framer.h"
#include "engine/udp_handshake_driver.h"
#include "engine/wire_datagram_envelope.h"
#include "fakes/channel_tun.h"
#include "fakes/memory_datagram.h"
#include "fakes/memory_stream.h"
#include "handshake/client_handshake.h"
#include "handshake/server_handshake.h"
#include "handshake/udp_client_handshake.h"
#include "handshake/udp_server_handshake.h"
#include "tunnel/pushed_params.h"
#include "tunnel/session.h"
#include "wire/modes.h"
#include "wire/session_close.h"
#include "wire/udp_obfs.h"

namespace qeli::test {

/// Builds the set-up flight of an outer layer (client or server side); null = none.
using SetupFactory = std::function<std::unique_ptr<transport::StreamSetup>(bool client)>;

struct TunnelOptions {
  const wire::ModeSpec* mode = nullptr;
  /// Outer stream layers' set-ups, outermost last (the mode's `layers`, built by the test).
  std::vector<SetupFactory> layers;
  bool padding = false;        ///< the server pushes padding (obf.padding)
  bool fragmentation = false;  ///< the server fragments its flight (obf.fragmentation)
  bool quic = false;           ///< UDP: QUIC-shaped envelopes
  bool obfs = false;           ///< UDP: the obfs seal
  bool impaired = false;       ///< UDP: loss and reordering during the data phase
  std::size_t mtu = 1400;
};

class InMemoryTunnel {
 public:
  explicit InMemoryTunnel(TunnelOptions o) : o_(std::move(o)) {
    identity_ = [] {
      crypto::DeterministicRng r(77);
      return crypto::x25519_generate(r);
    }();
    pushed_.padding.enabled = o_.padding;
    pushed_.padding.min_bytes = 32;
    pushed_.padding.max_bytes = 512;
    auth_ok_.client_ip = "10.8.0.2";
    auth_ok_.server_ip = "10.8.0.1";
    auth_ok_.prefix = 24;
    auth_ok_.mtu = static_cast<std::uint16_t>(o_.mtu);
    auth_ok_.obfuscation_json = tunnel::to_json(pushed_);
    ok_ = o_.mode->carrier == wire::Carrier::kDatagram ? connect_datagram() : connect_stream();
    if (ok_) start_sessions();
  }
  ~InMemoryTunnel() { stop_all(); }
  InMemoryTunnel(const InMemoryTunnel&) = delete;
  InMemoryTunnel& operator=(const InMemoryTunnel&) = delete;

  bool connected() const { return ok_; }
  /// Extensions both ends took (the client's view).
  std::uint32_t negotiated() const { return negotiated_; }

  /// Stops the server's session (its sender says goodbye if the client took the close
  /// extension) and waits for it.
  void stop_server() {
    server_stop_.stop();
    if (server_thread_.joinable()) server_thread_.join();
  }
  void stop_client() {
    client_stop_.stop();
    if (client_thread_.joinable()) client_thread_.join();
  }
  /// Waits up to `d` for the client's session to end by itself; true if it did.
  bool wait_client_end(std::chrono::milliseconds d) {
    const auto until = std::chrono::steady_clock::now() + d;
    while (!client_done_.load() && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return client_done_.load();
  }
  bool wait_server_end(std::chrono::milliseconds d) {
    const auto until = std::chrono::steady_clock::now() + d;
    while (!server_done_.load() && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return server_done_.load();
  }
  void stop_all() {
    stop_client();
    stop_server();
  }
  tunnel::SessionEnd client_end() const { return client_end_; }
  tunnel::SessionEnd server_end() const { return server_end_; }
  std::optional<wire::CloseReason> close_heard() const {
    const int r = close_heard_.load();
    if (r < 0) return std::nullopt;
    return static_cast<wire::CloseReason>(r);
  }
  MemoryNet& net() { return net_; }

  ChannelTun client_tun, server_tun;
  tunnel::SessionCounters client_counters, server_counters;

 private:
  static constexpr std::chrono::seconds kHandshakeTimeout{60};
  handshake::ClientConfig client_config(handshake::Carrier c) const {
    handshake::ClientConfig cc;
    cc.mode = o_.mode->flight;
    cc.pinned_server_key = identity_.public_key;
    cc.user = "alice";
    cc.password = "pw";
    cc.sni = {wire::Sni::Kind::kHost, "example.com"};
    cc.extensions = handshake::our_extensions(c);
    // These tests check what arrives, not how fast: a loaded sanitizer build once took
    // the default 15 s for a handshake (CI, 2026-12-06).
    cc.timeout = kHandshakeTimeout;
    return cc;
  }
  handshake::ServerConfig server_config(handshake::Carrier c) const {
    handshake::ServerConfig sc;
    sc.mode = o_.mode->flight;
    sc.identity = &identity_;
    sc.fragmentation.enabled = o_.fragmentation;
    sc.extensions = handshake::our_extensions(c);
    sc.timeout = kHandshakeTimeout;
    return sc;
  }

  bool connect_stream() {
    auto pair = memory_stream_pair();
    std::unique_ptr<transport::Stream> cs = std::move(pair.a), ss = std::move(pair.b);
    engine::StopSignal stop;  // never fires: the handshakes have their own timeouts
    handshake::Failure server_failure = handshake::Failure::kTimeout;
    std::thread server([&] {
      for (const auto& make : o_.layers) {
        auto setup = make(false);
        setup->start(std::chrono::steady_clock::now());
        if (engine::drive_stream_setup(*setup, *ss, stop) != transport::SetupState::kDone) return;
        ss = setup->into_stream(std::move(ss));
      }
      handshake::ServerHandshake hs(server_config(handshake::Carrier::kStream), server_rng_);
      hs.start(std::chrono::steady_clock::now());
      server_failure = engine::drive_server_handshake(
          hs, *ss, stop,
          [&](handshake::ServerEvent&, handshake::ServerHandshake& h) { h.accept(auth_ok_); });
      if (server_failure == handshake::Failure::kNone) {
        server_hs_ = hs.take_session();
        offered_ = server_hs_->advertised_caps;
      }
    });
    handshake::Failure client_failure = handshake::Failure::kTimeout;
    bool layers_ok = true;
    for (const auto& make : o_.layers) {
      auto setup = make(true);
      setup->start(std::chrono::steady_clock::now());
      if (engine::drive_stream_setup(*setup, *cs, stop) != transport::SetupState::kDone) {
        layers_ok = false;
        break;
      }
      cs = setup->into_stream(std::move(cs));
    }
    if (layers_ok) {
      handshake::ClientHandshake hs(client_config(handshake::Carrier::kStream), client_rng_);
      hs.start(std::chrono::steady_clock::now());
      client_failure = engine::drive_client_handshake(hs, *cs, stop);
      if (client_failure == handshake::Failure::kNone) client_hs_ = hs.take_session();
    }
    server.join();
    if (client_failure != handshake::Failure::kNone ||
        server_failure != handshake::Failure::kNone) {
      return false;
    }
    client_stream_ = std::move(cs);
    server_stream_ = std::move(ss);
    client_io_ = std::make_unique<engine::StreamFramer>(*client_stream_, client_hs_->recv.framing(),
                                                        client_hs_->leftover);
    server_io_ = std::make_unique<engine::StreamFramer>(*server_stream_, server_hs_->recv.framing(),
                                                        server_hs_->leftover);
    return true;
  }

  bool connect_datagram() {
    auto pair = memory_datagram_pair(net_);
    client_sock_.emplace(std::move(pair.a));
    server_sock_.emplace(std::move(pair.b));
    client_addr_ = client_sock_->local_address();
    server_addr_ = server_sock_->local_address();
    const crypto::Key32 key = wire::derive_obfs_key("in-memory-psk");
    std::optional<wire::UdpObfs> client_obfs, server_obfs;
    if (o_.obfs) {
      obfs_key_.emplace(key.span());
      client_obfs.emplace(key);
      server_obfs.emplace(key);
    }
    handshake::UdpClientConfig uc;
    uc.inner = client_config(handshake::Carrier::kDatagram);
    uc.quic = o_.quic;
    uc.obfs = client_obfs ? &*client_obfs : nullptr;
    handshake::UdpServerConfig us;
    us.inner = server_config(handshake::Carrier::kDatagram);
    us.obfs = server_obfs ? &*server_obfs : nullptr;

    engine::StopSignal stop;  // never fires: the handshakes have their own timeouts
    handshake::Failure client_failure = handshake::Failure::kTimeout;
    std::optional<handshake::UdpClientSession> client_udp;
    std::thread client([&] {
      handshake::UdpClientHandshake hs(uc, client_rng_);
      client_failure = engine::drive_udp_client_handshake(hs, *client_sock_, server_addr_, stop);
      if (client_failure == handshake::Failure::kNone) client_udp = hs.take_session();
    });
    // The server: a worker's handshake service for one client (server/udp_worker.h does this for
    // many): datagrams in, datagrams out, the AUTH verdict. Once it is done, what the
    // client sends next (its capability frame, data) stays queued for the session. The
    // path is clean until the handshake is over (impairments come after it), so no AUTH
    // retransmit needs the resender here (udp_handshake_test covers a lossy handshake).
    handshake::UdpServerHandshake hs(us, server_rng_);
    std::optional<handshake::UdpServerSession> server_udp;
    std::array<std::uint8_t, 2048> buf{};
    const auto give_up =
        std::chrono::steady_clock::now() + kHandshakeTimeout + std::chrono::seconds(5);
    while (!server_udp && std::chrono::steady_clock::now() < give_up) {
      pollfd p{server_sock_->fd(), POLLIN, 0};
      ::poll(&p, 1, 20);
      const Instant now = std::chrono::steady_clock::now();
      for (;;) {
        transport::RecvSlot slot = transport::RecvSlot::over(buf.data(), buf.size());
        auto got = server_sock_->recv({&slot, 1});
        if (!got.ok() || *got == 0) break;
        hs.on_datagram(MutableByteSpan(buf.data(), slot.len), now);
        if (hs.state() != handshake::State::kRunning) break;
      }
      if (auto d = hs.deadline(); d && now >= *d) hs.on_timer(now);
      if (auto ev = hs.take_event()) hs.accept(auth_ok_);
      engine::send_handshake_datagrams(*server_sock_, hs.take_datagrams(), client_addr_);
      if (hs.state() == handshake::State::kDone) server_udp = hs.take_session();
      if (hs.state() == handshake::State::kFailed) break;
    }
    // The client's own timeout ends its half if the server gave up.
    client.join();
    if (client_failure != handshake::Failure::kNone || !server_udp || !client_udp) return false;
    client_hs_ = std::move(client_udp->session);
    server_hs_ = std::move(server_udp->session);
    offered_ = server_hs_->advertised_caps;
    const crypto::Key32* k = obfs_key_ ? &*obfs_key_ : nullptr;
    client_send_env_ = std::make_unique<engine::WireDatagramEnvelope>(
        client_udp->envelope, k, client_udp->next_packet_number, client_rng_);
    client_recv_env_ =
        std::make_unique<engine::WireDatagramEnvelope>(client_udp->envelope, k, 0, client_rng_);
    server_send_env_ = std::make_unique<engine::WireDatagramEnvelope>(
        server_udp->envelope, k, server_udp->next_packet_number, server_rng_);
    server_recv_env_ =
        std::make_unique<engine::WireDatagramEnvelope>(server_udp->envelope, k, 0, server_rng_);
    client_io_ = std::make_unique<engine::DatagramFramer>(*client_sock_, server_addr_,
                                                          *client_send_env_, *client_recv_env_);
    server_io_ = std::make_unique<engine::DatagramFramer>(*server_sock_, client_addr_,
                                                          *server_send_env_, *server_recv_env_);
    if (o_.impaired) {
      net_.add(std::make_unique<DropRandom>(3, 42));
      net_.add(std::make_unique<Reorder>(5));
    }
    return true;
  }

  void start_sessions() {
    const Instant now = std::chrono::steady_clock::now();
    negotiated_ = client_hs_->negotiated_caps;
    const bool gso = (negotiated_ & handshake::caps::kGsoSuperPackets) != 0;
    const bool close_notify = (negotiated_ & handshake::caps::kCloseNotify) != 0;

    // The client, as client/core/connector.cc sets it up: what was pushed over its fallbacks.
    tunnel::SessionParams cp;
    cp.apply(tunnel::parse_pushed_params(client_hs_->auth_ok->obfuscation_json, {}));
    cp.send.mtu = o_.mtu;
    // A UDP client reads its TUN split: MTU-sized send slots (client/core/connector_datagram.cc).
    if (o_.mode->carrier == wire::Carrier::kDatagram) cp.send.max_packet = o_.mtu;
    cp.send.initial_frames.push_back(wire::build_mtu_report(static_cast<std::uint16_t>(o_.mtu)));
    cp.send.initial_frames.push_back(wire::build_client_info("in-memory", "test"));
    cp.send.farewell = [this, close_notify](tunnel::SessionEnd) -> Bytes {
      if (!close_notify || !client_stop_.stopped()) return {};
      return wire::build_session_close(wire::CloseReason::kClientStopping);
    };
    cp.receive.gso_receive = gso;
    cp.receive.end_on_close_frame = close_notify;
    cp.receive.on_control = [this](const wire::ControlFrame& f) {
      if (auto r = wire::parse_session_close(f); r.ok()) close_heard_ = static_cast<int>(*r);
    };
    client_ = std::make_unique<tunnel::Session>(std::move(cp), std::move(client_hs_->send),
                                                std::move(client_hs_->recv), client_io_->room(),
                                                client_rng_, client_counters, nullptr, now);
    client_->peer().gso = gso;
    client_->peer().close_notify = close_notify;

    // The server, as server/profile_runtime.cc and udp_worker.cc set it up.
    tunnel::SessionParams sp;
    sp.apply(pushed_);
    sp.send.mtu = o_.mtu;
    sp.send.farewell = [this](tunnel::SessionEnd e) -> Bytes {
      if (e != tunnel::SessionEnd::kStopped || !server_->peer().close_notify.load()) return {};
      return wire::build_session_close(wire::CloseReason::kShutdown);
    };
    sp.receive.offered_caps = offered_;
    sp.receive.gso_receive = (offered_ & handshake::caps::kGsoSuperPackets) != 0;
    // The server's own handling ends the session on the client's goodbye.
    sp.receive.end_on_close_frame = true;
    server_ = std::make_unique<tunnel::Session>(std::move(sp), std::move(server_hs_->send),
                                                std::move(server_hs_->recv), server_io_->room(),
                                                server_rng_, server_counters, nullptr, now);

    client_src_ = std::make_unique<engine::TunQueueSource>(client_tun, client_counters);
    server_src_ = std::make_unique<engine::TunQueueSource>(server_tun, server_counters);
    client_thread_ = std::thread([this] {
      client_end_ =
          engine::run_session(*client_, *client_io_, *client_src_,
                              engine::TunWriter{&client_tun, nullptr}, client_stop_, clock_);
      client_done_ = true;
    });
    server_thread_ = std::thread([this] {
      server_end_ =
          engine::run_session(*server_, *server_io_, *server_src_,
                              engine::TunWriter{&server_tun, nullptr}, server_stop_, clock_);
      server_done_ = true;
    });
  }

  TunnelOptions o_;
  crypto::X25519KeyPair identity_;
  tunnel::PushedParams pushed_;
  handshake::AuthOk auth_ok_;
  crypto::DeterministicRng client_rng_{11}, server_rng_{12};
  std::uint32_t offered_ = 0, negotiated_ = 0;
  bool ok_ = false;
  // Carrier.
  std::unique_ptr<transport::Stream> client_stream_, server_stream_;
  MemoryNet net_;
  std::optional<transport::UdpSocket> client_sock_, server_sock_;
  transport::SockAddr client_addr_, server_addr_;
  std::optional<crypto::Key32> obfs_key_;
  std::unique_ptr<engine::WireDatagramEnvelope> client_send_env_, client_recv_env_,
      server_send_env_, server_recv_env_;
  std::unique_ptr<engine::FrameIo> client_io_, server_io_;
  // Sessions.
  std::optional<handshake::ClientSession> client_hs_;
  std::optional<handshake::ServerSession> server_hs_;
  std::unique_ptr<tunnel::Session> client_, server_;
  std::unique_ptr<engine::TunQueueSource> client_src_, server_src_;
  const SteadyClock clock_;
  engine::StopSignal client_stop_, server_stop_;
  std::thread client_thread_, server_thread_;
  std::atomic<bool> client_done_{false}, server_done_{false};
  tunnel::SessionEnd client_end_ = tunnel::SessionEnd::kStopped;
  tunnel::SessionEnd server_end_ = tunnel::SessionEnd::kStopped;
  std::atomic<int> close_heard_{-1};
};

}  // namespace qeli::test
