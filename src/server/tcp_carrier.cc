#include "server/tcp_carrier.h"

#include <chrono>

#include "handshake/types.h"
#include "transport/tls_stream.h"
#include "wire/udp_obfs.h"
#include "wire/ws_frame.h"

namespace qeli::server {

transport::Overhead tcp_carrier_overhead(const config::ProfileConfig& p) {
  if (p.obf.mode == config::ObfMode::kObfs && p.obf.obfs_fronting == config::Fronting::kWebsocket) {
    return transport::Overhead{}.with_layer(wire::kWsDataHeader, 0, wire::kWsMaxPayload);
  }
  if (p.transport == config::Transport::kTcp && p.obf.reality.enabled && p.obf.reality.real_tls) {
    // reality-tls: each record inside one TLS 1.3 application_data record.
    return transport::Overhead{}.with_layer(transport::kTlsRecordHead, transport::kTlsRecordTail,
                                            transport::kTlsMaxChunk);
  }
  return {};  // obfs without the front and fake-tls/REALITY add nothing to a record
}

std::unique_ptr<transport::ObfsSetup> make_obfs_setup(const config::ProfileConfig& p,
                                                      crypto::Rng& rng, std::uint64_t now,
                                                      bool keep_alive) {
  if (p.obf.mode != config::ObfMode::kObfs) return nullptr;
  transport::ObfsParams op;
  op.key = wire::derive_obfs_key(p.obf.obfs_key);
  op.websocket = p.obf.obfs_fronting == config::Fronting::kWebsocket;
  op.junk =
      wire::JunkPlan::from_config(p.obf.awg.enabled, p.obf.awg.jc, p.obf.awg.jmin, p.obf.awg.jmax);
  op.unix_now = now;
  if (!keep_alive) op.decoy_keepalive = Duration::zero();
  op.header_xor = (handshake::our_extensions(handshake::Carrier::kStream) &
                   handshake::caps::kObfsHeaderXor) != 0;
  // 0.7.16 bounds the whole unauthenticated obfs accept by 20 s.
  op.timeout = std::chrono::seconds(20);
  return std::make_unique<transport::ObfsSetup>(transport::ObfsSetup::Side::kServer, std::move(op),
                                                rng);
}

CarrierCounter counter_of(transport::ObfsFailure f) {
  using F = transport::ObfsFailure;
  switch (f) {
    case F::kTimeout: return CarrierCounter::kObfsTimeout;
    case F::kHeadTooLarge: return CarrierCounter::kObfsHeadTooLarge;
    case F::kNotUpgrade: return CarrierCounter::kObfsAnswered404;
    case F::kJunkTooLong: return CarrierCounter::kObfsJunkTooLong;
    case F::kBadFrame: return CarrierCounter::kObfsBadFrame;
    case F::kBudget: return CarrierCounter::kObfsBudget;
    case F::kWebSocketClose: return CarrierCounter::kObfsWebSocketClose;
    case F::kNone:
    case F::kBadResponse:
    case F::kPeerClosed: break;
  }
  return CarrierCounter::kObfsPeerClosed;
}

std::uint64_t unix_now() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::seconds>(
                                        std::chrono::system_clock::now().time_since_epoch())
                                        .count());
}

}  // namespace qeli::server
