#include "transport/tls_target_probe.h"

#include <poll.h>
#include <sys/socket.h>

#include "tls/client_handshake.h"
#include "tls/client_hello_builder.h"
#include "tls/record_channel.h"
#include "tls/shape_extractor.h"
#include "transport/endpoint.h"
#include "transport/tcp.h"

namespace qeli::transport {
namespace {

using Clock = std::chrono::steady_clock;

std::chrono::milliseconds left(Clock::time_point end) {
  const auto d = std::chrono::duration_cast<std::chrono::milliseconds>(end - Clock::now());
  return d.count() < 0 ? std::chrono::milliseconds(0) : d;
}

}  // namespace

Result<tls::TargetShape, std::string> probe_target(const TargetProbeConfig& cfg, crypto::Rng& rng) {
  const std::string where = cfg.host + ":" + std::to_string(cfg.port);
  // Config checks keep the name in range; a caller's bad name is an error, never an abort.
  const std::string_view name = cfg.sni.empty() ? std::string_view(cfg.host) : cfg.sni;
  if (name.empty() || name.size() > tls::kMaxServerNameSize) {
    return fail("cannot probe " + where + ": the server name must be 1.." +
                std::to_string(tls::kMaxServerNameSize) + " bytes");
  }
  auto addrs = resolve(HostPort{cfg.host, cfg.port}, Families::kIpv4First);
  if (!addrs) return fail("cannot resolve " + where + ": " + addrs.error().message);
  const auto end = Clock::now() + cfg.timeout;
  auto fd = tcp_connect(addrs->front(), left(end), cfg.cancel_fd);
  if (!fd) return fail("cannot connect to " + where + ": " + fd.error());

  tls::ClientHelloParams hp;
  hp.server_name = name;
  hp.aes_hardware = tls::cpu_has_aes();
  rng.fill(hp.session_id);
  tls::ClientHandshake hs(cfg.hello ? cfg.hello(rng) : tls::build_client_hello(hp, rng), {});
  hs.start(Instant{});
  Bytes buf(64 * 1024);
  while (hs.state() == tls::ClientHandshake::State::kRunning) {
    const Bytes out = hs.take_output();
    if (!out.empty() && send_all(fd->get(), out, left(end)) != IoResult::kOk) {
      return fail("sending to " + where + " failed");
    }
    std::size_t got = 0;
    const IoResult r = recv_some(fd->get(), buf, left(end), got);
    if (r == IoResult::kTimeout) return fail(where + " did not finish the TLS handshake in time");
    if (r != IoResult::kOk) {
      hs.on_peer_closed();
      break;
    }
    hs.on_bytes({buf.data(), got}, Instant{});
  }
  const Bytes last = hs.take_output();  // our CCS + Finished (or the alert we owe)
  if (!last.empty()) (void)send_all(fd->get(), last, std::chrono::milliseconds(1000));
  if (hs.state() != tls::ClientHandshake::State::kDone) {
    return fail("TLS handshake with " + where + " failed: " + hs.failure_detail());
  }
  const tls::ServerFlight flight = hs.server_flight();
  tls::ClientEstablished est = hs.into_established();
  tls::RecordReceiver rx(est.suite, est.server_traffic.clone(), nullptr);
  (void)rx.buffer().append(est.leftover);
  // Tickets: read until the target is quiet for ticket_idle, at most ticket_wait.
  const auto ticket_end = Clock::now() + cfg.ticket_wait;
  std::vector<std::size_t> unprompted;  // data records it sends before we say anything
  for (;;) {
    auto in = rx.next();
    if (!in || in->kind == tls::InboundKind::kClosed) break;
    if (in->kind == tls::InboundKind::kData) {
      if (unprompted.size() < 8) unprompted.push_back(rx.last_record_size());
      continue;
    }
    std::size_t got = 0;
    const auto wait = std::min(cfg.ticket_idle, left(ticket_end));
    if (wait.count() == 0 || recv_some(fd->get(), buf, wait, got) != IoResult::kOk) break;
    if (!rx.buffer().append({buf.data(), got})) break;
  }
  // A qeli terminator stands in for such records with padding-only ones of their sizes.
  for (std::size_t n : rx.empty_record_sizes()) {
    if (unprompted.size() < 8) unprompted.push_back(n);
  }
  tls::RecordSender tx(est.suite, est.client_traffic.clone(), nullptr, false);
  if (auto close = tx.close_notify())
    (void)send_all(fd->get(), *close, std::chrono::milliseconds(500));
  auto shape = tls::extract_shape(flight, rx.control_records(), std::move(unprompted),
                                  "probe " + where + " sni=" + std::string(hp.server_name));
  if (!shape)
    return fail("cannot use the flight of " + where + ": " + tls::to_string(shape.error()));
  return std::move(*shape);
}

std::shared_ptr<const tls::TargetShape> probe_or_fallback(const TargetProbeConfig& cfg,
                                                          crypto::Rng& rng, std::string* error) {
  auto r = probe_target(cfg, rng);
  if (r) {
    if (error) error->clear();
    return std::make_shared<const tls::TargetShape>(std::move(*r));
  }
  if (error) *error = r.error();
  return std::make_shared<const tls::TargetShape>(
      tls::fallback_shape(cfg.sni.empty() ? cfg.host : cfg.sni, r.error(), rng));
}

}  // namespace qeli::transport
