#include "harness.h"

#include <variant>

namespace qeli::handshake::test {

AuthOk sample_auth_ok() {
  AuthOk ok;
  ok.client_ip = "10.8.0.2";
  ok.server_ip = "10.8.0.1";
  ok.prefix = 24;
  ok.mtu = 1400;
  ok.dns = "10.8.0.1";
  ok.routes = {{"10.0.0.0/8", "10.8.0.1", 100}, {"192.168.7.0/24", "", 50}};
  ok.obfuscation_json = R"({"heartbeat":{"enabled":true,"interval_ms":15000}})";
  JoinToken t{};
  for (std::size_t i = 0; i < t.size(); ++i) t[i] = static_cast<std::uint8_t>(0xA0 + i);
  ok.session_token = t;
  ok.max_streams = 4;
  ok.multipath_adaptive = true;
  return ok;
}

Harness::Harness(Mode mode, std::uint64_t seed)
    : client_rng(seed * 2 + 1), server_rng(seed * 2 + 2), identity([&] {
        crypto::DeterministicRng r(seed * 2 + 1000);
        return crypto::x25519_generate(r);
      }()) {
  client_cfg.mode = mode;
  client_cfg.pinned_server_key = identity.public_key;
  client_cfg.user = "alice";
  client_cfg.password = "s3cret:pw";
  client_cfg.device_id = DeviceId{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  client_cfg.sni = {wire::Sni::Kind::kHost, "example.com"};
  server_cfg.mode = mode;
  server_cfg.identity = &identity;
  auth_ok = sample_auth_ok();
}

namespace {

void deliver(Bytes bytes, std::size_t& pos, const std::optional<Flip>& flip, bool c2s,
             std::size_t chunk, const auto& sink) {
  if (flip && flip->client_to_server == c2s) {
    const std::size_t byte = flip->bit / 8;
    if (byte >= pos && byte < pos + bytes.size()) {
      bytes[byte - pos] ^= static_cast<std::uint8_t>(1U << (flip->bit % 8));
    }
  }
  pos += bytes.size();
  for (std::size_t off = 0; off < bytes.size(); off += chunk) {
    sink(ByteSpan(bytes).subspan(off, std::min(chunk, bytes.size() - off)));
  }
}

}  // namespace

Outcome Harness::run() {
  Outcome r;
  ClientHandshake client(client_cfg, client_rng);
  ServerHandshake server(server_cfg, server_rng);
  Instant now{};
  client.start(now);
  server.start(now);
  std::size_t c2s_pos = 0, s2c_pos = 0;
  for (int round = 0; round < 20; ++round) {
    bool progress = false;
    for (Outgoing& o : client.take_output()) {
      progress = true;
      append(r.c2s, o.bytes);
      deliver(std::move(o.bytes), c2s_pos, flip, true, chunk, [&](ByteSpan b) {
        if (server.state() == State::kDone) {
          append(r.c2s_after_done, b);
        } else {
          server.on_bytes(b, now);
        }
      });
    }
    while (auto ev = server.take_event()) {
      progress = true;
      if (auto* a = std::get_if<AuthRequest>(&*ev)) {
        const bool good = a->user == "alice" && a->password == "s3cret:pw";
        r.auth_requests.push_back(*a);
        good ? server.accept(auth_ok) : server.reject();
      } else {
        const auto& j = std::get<JoinRequest>(*ev);
        r.join_requests.push_back(j);
        (auth_ok.session_token && j.token == *auth_ok.session_token) ? server.accept_join()
                                                                     : server.reject();
      }
    }
    std::vector<Outgoing> out = server.take_output();
    if (server_data_after_ok && server.state() == State::kDone && !r.server && !out.empty()) {
      r.server = server.take_session();
      Bytes rec(wire::record_size(r.server->send.framing(), server_data_after_ok->size(), 0));
      if (r.server->send.seal(*server_data_after_ok, 0, rec).ok()) append(out.back().bytes, rec);
    }
    for (Outgoing& o : out) {
      progress = true;
      r.server_chunks.push_back(o);
      append(r.s2c, o.bytes);
    }
    if (replace_server_output && !out.empty()) {
      out = {Outgoing{*replace_server_output, {}}};
      replace_server_output.reset();
    }
    for (Outgoing& o : out) {
      deliver(std::move(o.bytes), s2c_pos, flip, false, chunk,
              [&](ByteSpan b) { client.on_bytes(b, now); });
    }
    // The server closes silently on failure; the client sees the close.
    if (server.state() == State::kFailed && client.state() == State::kRunning) {
      client.on_peer_closed();
    }
    if (client.state() == State::kFailed && server.state() == State::kRunning) {
      server.on_peer_closed();
    }
    if (!progress) break;
  }
  // Nothing moves any more: let the deadlines fire (a stuck handshake times out).
  now += std::chrono::seconds(60);
  client.on_timer(now);
  server.on_timer(now);
  r.client_state = client.state();
  r.client_failure = client.failure();
  r.server_state = server.state();
  r.server_failure = server.failure();
  if (r.client_state == State::kDone) r.client = client.take_session();
  if (r.server_state == State::kDone && !r.server) r.server = server.take_session();
  return r;
}

}  // namespace qeli::handshake::test
