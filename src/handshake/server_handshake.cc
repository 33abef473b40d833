// Server state machine. Each step is annotated with its message in docs/PROTOCOL.md.
#include "handshake/server_handshake.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "crypto/ct.h"
#include "crypto/data_keys.h"
#include "crypto/mlkem768.h"
#include "crypto/sha256.h"
#include "handshake/key_schedule.h"
#include "handshake/machine_core.h"
#include "wire/faketls_client_hello.h"
#include "wire/faketls_server_flight.h"
#include "wire/record_reader.h"

namespace qeli::handshake {

namespace {
enum class Phase : std::uint8_t {
  kIdle,      // before start()
  kHello,     // waiting for the ClientHello (fake-tls) or client_pub(32) (plain)
  kAuth,      // waiting for the AUTH / JOIN record
  kDecision,  // event emitted; waiting for accept()/accept_join()/reject()
  kDone,
  kFailed,
};
enum class Pending : std::uint8_t { kNone, kAuth, kJoin };
}  // namespace

struct ServerHandshake::Impl : MachineCore<Phase, ServerSession> {
  Impl(const ServerConfig& c, crypto::Rng& r)
      : cfg(c), rng(r), reader(framing(), wire::kMaxRecordPayload) {
    if (cfg.identity == nullptr) std::abort();  // a configuration bug
  }

  ServerConfig cfg;
  crypto::Rng& rng;
  wire::RecordReader reader;
  Pending pending = Pending::kNone;
  std::optional<ServerEvent> event;

  Bytes client_pub_buf;  // plain: accumulates the 32 raw bytes
  X25519Public client_eph{};
  crypto::Key32 ee;
  crypto::Key32 es;
  std::shared_ptr<const crypto::Key32> jsecret;  // for an AUTH: the session's join secret
  crypto::Digest32 transcript_hash{};
  std::optional<std::string> sni;
  std::optional<wire::PacketCodec> send, recv;
  std::uint32_t advertised_caps = 0;

  wire::Framing framing() const { return wire::framing_of(cfg.mode); }

  // Silent close: nothing more goes on the wire, and no decision is asked for.
  void fail_with(Failure f) {
    MachineCore::fail_with(f);
    event.reset();
  }

  Duration jitter() {
    const auto max = std::chrono::duration_cast<std::chrono::microseconds>(cfg.max_jitter).count();
    if (max <= 0) return Duration{0};
    return std::chrono::microseconds(
        static_cast<std::int64_t>(rng.uniform(0, static_cast<std::uint64_t>(max))));
  }

  std::optional<Bytes> seal(ByteSpan plaintext) {
    Bytes rec(wire::record_size(framing(), plaintext.size(), 0));
    if (!send->seal(plaintext, 0, rec).ok()) {
      fail_with(Failure::kSealFailed);
      return std::nullopt;
    }
    return rec;
  }

  // Data keys (ee, [ml], [es]) and the codecs; es is needed for the proofs in any case.
  bool derive_keys(const crypto::Key32* ml) {
    auto shared_es = crypto::x25519(cfg.identity->private_key.span(), client_eph);
    if (!shared_es) {
      fail_with(Failure::kLowOrderPoint);
      return false;
    }
    es = std::move(*shared_es);
    const crypto::DataKeys keys = crypto::derive_data_keys(
        kdf_scheme(cfg.mode, cfg.bind_static), ee.span(), ml, cfg.bind_static ? &es : nullptr);
    send.emplace(framing(), keys.server_to_client, rng);
    recv.emplace(framing(), keys.client_to_server, rng);
    jsecret = std::make_shared<const crypto::Key32>(join_secret(keys));
    return true;
  }

  // Proof message: static_pub(32) ‖ proof(32), or only proof(32) when hiding identity.
  std::optional<Bytes> proof_record() {
    const crypto::Key32 proof = server_auth_proof(es, ee, transcript_hash);
    Bytes msg;
    if (!cfg.require_client_key_proof) {
      msg.assign(cfg.identity->public_key.begin(), cfg.identity->public_key.end());
    }
    append(msg, proof.span());
    return seal(msg);
  }

  void on_client_hello(ByteSpan rec) {
    auto ch = wire::parse_client_hello(rec);
    if (!ch.ok()) return fail_with(Failure::kBadClientHello);
    sni = ch->sni;
    client_eph = ch->x25519;
    crypto::X25519KeyPair eph = crypto::x25519_generate(rng);
    auto shared = crypto::x25519(eph.private_key.span(), client_eph);
    if (!shared) return fail_with(Failure::kLowOrderPoint);
    ee = std::move(*shared);
    crypto::MlKem768Encapsulation enc = crypto::mlkem768_encapsulate(ch->mlkem_ek, rng);
    if (!derive_keys(&enc.shared_secret)) return;

    wire::ServerHelloParams shp;
    rng.fill(shp.random);
    rng.fill(shp.session_id);  // random, NOT the client's (0.7.16 behaviour)
    shp.mlkem_ct = enc.ciphertext;
    shp.x25519 = eph.public_key;
    const Bytes sh = wire::build_server_hello(shp);
    const Bytes ccs = wire::build_change_cipher_spec();
    const Bytes cert = wire::build_fake_certificate(rng);
    const Bytes fin = wire::build_fake_finished(rng);
    const Bytes nst = wire::build_fake_new_session_ticket(rng);
    // transcript = SHA-256(CH ‖ SH ‖ Cert ‖ Finished), full records.
    transcript_hash = crypto::sha256({rec, ByteSpan(sh), ByteSpan(cert), ByteSpan(fin)});
    auto proof = proof_record();
    if (!proof) return;

    const Duration first_delay = jitter();
    if (!cfg.fragmentation.enabled) {
      Bytes all = sh;
      for (const Bytes* b : {&ccs, &cert, &fin, &nst, static_cast<const Bytes*>(&*proof)}) {
        append(all, *b);
      }
      out.push_back({std::move(all), first_delay});
    } else {
      // ServerHello in random-size chunks, 2 ms apart; Cert ‖ Fin in two halves; NST last.
      const Fragmentation& f = cfg.fragmentation;
      const std::size_t lo = std::max<std::size_t>(1, f.min_chunk);
      const std::size_t hi = std::max(lo, f.max_chunk);
      std::size_t off = 0, pieces = 0;
      while (off < sh.size()) {
        std::size_t n = rng.uniform(lo, hi);
        if (++pieces >= std::max<std::size_t>(1, f.max_fragments)) n = sh.size() - off;
        n = std::min(n, sh.size() - off);
        out.push_back(
            {Bytes(sh.begin() + static_cast<long>(off), sh.begin() + static_cast<long>(off + n)),
             pieces == 1 ? first_delay : Duration(wire::kFragmentGap)});
        off += n;
      }
      out.push_back({ccs, wire::kFragmentGap});
      Bytes cert_fin = cert;
      append(cert_fin, fin);
      const auto half = static_cast<long>(cert_fin.size() / 2);
      out.push_back({Bytes(cert_fin.begin(), cert_fin.begin() + half), wire::kFragmentGap});
      out.push_back({Bytes(cert_fin.begin() + half, cert_fin.end()), wire::kFragmentGap});
      Bytes tail = nst;
      append(tail, *proof);
      out.push_back({std::move(tail), wire::kFragmentGap});
    }
    phase = Phase::kAuth;
  }

  void on_client_pub(ByteSpan& in) {
    const std::size_t take = std::min(in.size(), 32 - client_pub_buf.size());
    client_pub_buf.insert(client_pub_buf.end(), in.begin(), in.begin() + static_cast<long>(take));
    in = in.subspan(take);
    if (client_pub_buf.size() < 32) return;
    std::memcpy(client_eph.data(), client_pub_buf.data(), 32);
    crypto::X25519KeyPair eph = crypto::x25519_generate(rng);
    auto shared = crypto::x25519(eph.private_key.span(), client_eph);
    if (!shared) return fail_with(Failure::kLowOrderPoint);
    ee = std::move(*shared);
    if (!derive_keys(nullptr)) return;
    // plain transcript = SHA-256(client_pub ‖ server_pub)
    transcript_hash = crypto::sha256({ByteSpan(client_eph), ByteSpan(eph.public_key)});
    auto proof = proof_record();
    if (!proof) return;
    Bytes flight(eph.public_key.begin(), eph.public_key.end());
    append(flight, *proof);
    out.push_back({std::move(flight), jitter()});
    phase = Phase::kAuth;
  }

  void on_auth(MutableByteSpan rec) {
    auto opened = recv->open_in_place(rec);
    if (!opened.ok()) {
      if (cfg.drop_unauthenticated_records) return;  // a stray or forged datagram
      return fail_with(Failure::kRecordAuthFailed);
    }
    const ByteSpan p = opened->data;
    if (p.empty()) return;  // heartbeat/cover before AUTH: skip
    if (auto join = parse_join(p)) {
      event = JoinRequest{join->token, join->stream_index, join->proof, transcript_hash};
      pending = Pending::kJoin;
      phase = Phase::kDecision;
      return;
    }
    auto auth = parse_auth(p);
    if (!auth.ok()) return fail_with(Failure::kBadAuthMessage);
    const crypto::Key32 expect = client_key_proof(es, ee, transcript_hash);
    const bool proof_ok = crypto::ct_equal(expect.span(), auth->key_proof);
    // Checked before anything else so a prober without the key learns nothing.
    if (cfg.require_client_key_proof && !proof_ok)
      return fail_with(Failure::kClientKeyProofInvalid);
    event = AuthRequest{std::move(auth->user), std::move(auth->password), auth->device_id, proof_ok,
                        jsecret};
    pending = Pending::kAuth;
    phase = Phase::kDecision;
  }

  void on_bytes(ByteSpan in) {
    if (phase == Phase::kHello && cfg.mode == Mode::kPlain) on_client_pub(in);
    while (phase == Phase::kHello || phase == Phase::kAuth) {
      if (phase == Phase::kHello && cfg.mode == Mode::kPlain) break;  // still need raw bytes
      const auto next = reader.next_from(in);
      if (next.status == wire::RecordReader::Status::kError) {
        return fail_with(Failure::kRecordFraming);
      }
      if (next.status == wire::RecordReader::Status::kNeedMore) break;
      if (phase == Phase::kHello) {
        on_client_hello(next.record);
      } else {
        on_auth(next.record);
      }
    }
    // Bytes after AUTH (pipelined data) wait in the reader until the session is handed
    // over; keep feeding so none are lost, but never parse them here.
    while (phase == Phase::kDecision && !in.empty()) {
      const std::size_t n = reader.feed(in);
      if (n == 0) {
        extra.insert(extra.end(), in.begin(), in.end());
        break;
      }
      in = in.subspan(n);
    }
  }

  Bytes extra;  // input beyond the reader's capacity while a decision is pending

  void finish(ByteSpan reply, bool joined) {
    auto rec = seal(reply);
    if (!rec) return;
    out.push_back({std::move(*rec), {}});
    const ByteSpan rest = reader.buffered();
    Bytes leftover(rest.begin(), rest.end());
    append(leftover, extra);
    session.emplace(ServerSession{std::move(*send), std::move(*recv), sni, joined, advertised_caps,
                                  std::move(leftover)});
    // We offered AES-GCM records: the client's may come so once it took the bit (its
    // capability frame, or its first AES record; docs/PROTOCOL.md §18). Ours switch when
    // the data plane learns that (tunnel::PeerState::aes_gcm).
    if ((session->advertised_caps & caps::kAesGcm) != 0) session->recv.set_accept_aes(true);
    send.reset();
    recv.reset();
    phase = Phase::kDone;
  }
};

ServerHandshake::ServerHandshake(const ServerConfig& config, crypto::Rng& rng)
    : impl_(std::make_unique<Impl>(config, rng)) {}
ServerHandshake::~ServerHandshake() = default;

void ServerHandshake::start(Instant now) {
  if (impl_->phase != Phase::kIdle) return;
  impl_->deadline = now + impl_->cfg.timeout;
  impl_->phase = Phase::kHello;
}

void ServerHandshake::on_bytes(ByteSpan in, Instant now) {
  if (impl_->phase == Phase::kIdle) start(now);
  on_timer(now);
  if (impl_->ended()) return;
  impl_->on_bytes(in);
}

void ServerHandshake::on_peer_closed() {
  if (impl_->ended()) return;
  impl_->fail_with(Failure::kPeerClosed);
}

void ServerHandshake::on_timer(Instant now) {
  if (impl_->expired(now)) impl_->fail_with(Failure::kTimeout);
}

std::vector<Outgoing> ServerHandshake::take_output() { return impl_->take_output(); }

std::optional<ServerEvent> ServerHandshake::take_event() {
  return std::exchange(impl_->event, std::nullopt);
}

void ServerHandshake::accept(AuthOk ok) {
  if (impl_->phase != Phase::kDecision || impl_->pending != Pending::kAuth) return;
  if ((impl_->cfg.extensions & caps::kRoam) == 0) ok.x_roam_key.reset();
  if ((impl_->cfg.extensions & caps::kResume) == 0) ok.x_resume_secs.reset();
  if ((impl_->cfg.extensions & caps::kIpv6Inside) == 0) {
    ok.x_ip6.reset();  // only with the offer (a profile with the pool, extensions on)
    ok.x_server_ip6.reset();
    ok.x_dns6.reset();
    ok.x_routes6.clear();
  }
  if (impl_->cfg.extensions != 0) {
    ok.x_caps = impl_->cfg.extensions;
    impl_->advertised_caps = impl_->cfg.extensions;
    if ((impl_->cfg.extensions & caps::kTlsBinding) != 0 && impl_->cfg.tls_exporter) {
      ok.x_tls_bind = to_hex(tls_binding_proof(*impl_->cfg.tls_exporter, BindingSide::kServer));
    }
  } else {
    ok.x_caps.reset();  // extension off: byte-identical to 0.7.16
  }
  const Bytes reply = build_auth_ok(ok);
  impl_->finish(reply, false);
}

void ServerHandshake::accept_join() {
  if (impl_->phase != Phase::kDecision || impl_->pending != Pending::kJoin) return;
  // JOINOK stays the bare 0.7.16 word. Our client already knows what this server offers
  // (its session's AUTH OK did) and takes it with a capability frame on this connection;
  // a 0.7.16 client never sends one. The TLS binding needs AUTH OK's proof: not here.
  impl_->advertised_caps = impl_->cfg.extensions & ~caps::kTlsBinding;
  impl_->finish(as_bytes(kJoinOk), true);
}

void ServerHandshake::reject() {
  if (impl_->phase != Phase::kDecision) return;
  impl_->fail_with(Failure::kRejected);
}

std::optional<Instant> ServerHandshake::deadline() const { return impl_->live_deadline(); }
State ServerHandshake::state() const { return impl_->state(); }
Failure ServerHandshake::failure() const { return impl_->why; }
ServerSession ServerHandshake::take_session() { return impl_->take_session(); }

}  // namespace qeli::handshake
