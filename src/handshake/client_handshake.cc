// Client state machine. Each step is annotated with its message in docs/PROTOCOL.md.
#include "handshake/client_handshake.h"

#include <cstring>

#include "crypto/ct.h"
#include "crypto/data_keys.h"
#include "crypto/mlkem768.h"
#include "crypto/sha256.h"
#include "crypto/x25519.h"
#include "handshake/key_schedule.h"
#include "handshake/machine_core.h"
#include "wire/control_frame.h"
#include "wire/faketls_server_flight.h"
#include "wire/reality_token.h"
#include "wire/record_reader.h"

namespace qeli::handshake {

namespace {
enum class Phase : std::uint8_t {
  kIdle,
  kServerPub,    // plain: waiting for the server's raw 32-byte key
  kServerHello,  // fake-tls flight, strictly in order
  kCcs,
  kCertificate,
  kFinished,
  kTicket,
  kProof,  // the encrypted server proof record
  kReply,  // AUTH OK / JOINOK
  kDone,
  kFailed,
};
}  // namespace

struct ClientHandshake::Impl : MachineCore<Phase, ClientSession> {
  Impl(ClientConfig c, crypto::Rng& r)
      : cfg(std::move(c)), rng(r), reader(framing(), wire::kMaxRecordPayload) {}

  ClientConfig cfg;
  crypto::Rng& rng;
  wire::RecordReader reader;

  crypto::X25519KeyPair eph;
  std::optional<crypto::MlKem768KeyPair> kem;
  crypto::Sha256 transcript;
  crypto::Digest32 transcript_hash{};
  crypto::Key32 ee;
  std::optional<crypto::Key32> es_pinned;  // X25519(eph, pinned key)
  crypto::Key32 jsecret;                   // this connection's, if it is the session's AUTH
  std::optional<wire::PacketCodec> send, recv;
  Bytes server_pub_buf;  // plain: accumulates the 32 raw bytes
  X25519Public server_key{};

  wire::Framing framing() const { return wire::framing_of(cfg.mode); }

  void emit(Bytes b) { out.push_back(Outgoing{std::move(b), {}}); }

  bool seal_and_emit(ByteSpan plaintext) {
    Bytes rec(wire::record_size(framing(), plaintext.size(), 0));
    auto n = send->seal(plaintext, 0, rec);
    if (!n.ok()) {
      fail_with(Failure::kSealFailed);
      return false;
    }
    emit(std::move(rec));
    return true;
  }

  void start(Instant now) {
    if (phase != Phase::kIdle) return;
    deadline = now + cfg.timeout;
    if (cfg.bind_static && !cfg.pinned_server_key) return fail_with(Failure::kPinRequired);
    eph = crypto::x25519_generate(rng);
    if (cfg.pinned_server_key) {
      es_pinned = crypto::x25519(eph.private_key.span(), *cfg.pinned_server_key);
      if (!es_pinned) return fail_with(Failure::kLowOrderPoint);
    }
    if (cfg.mode == Mode::kPlain) {
      // plain: client_pub(32)
      emit(Bytes(eph.public_key.begin(), eph.public_key.end()));
      phase = Phase::kServerPub;
      return;
    }
    // fake-tls: ClientHello with X25519MLKEM768 (ek ‖ x25519) and X25519 shares.
    kem = crypto::mlkem768_generate(rng);
    wire::ClientHelloParams p;
    rng.fill(p.random);
    if (cfg.reality && es_pinned) {
      // es_pinned = X25519(eph, server identity): the token's shared secret (§4.1).
      p.session_id = wire::seal_reality_token(es_pinned->span(), cfg.reality->short_id,
                                              cfg.reality->unix_secs);
    } else if (cfg.session_id) {
      p.session_id = *cfg.session_id;
    } else {
      rng.fill(p.session_id);
    }
    p.x25519 = eph.public_key;
    p.mlkem_ek = kem->public_key;
    p.sni = cfg.sni;
    p.pad_to_min = cfg.pad_to_min;
    Bytes ch = wire::build_client_hello(p, rng);
    transcript.update(ch);
    emit(std::move(ch));
    phase = Phase::kServerHello;
  }

  // Derives the data keys once the server's ephemeral key (and ML-KEM secret) are known.
  bool derive_keys(const X25519Public& server_eph, const crypto::Key32* ml) {
    auto shared = crypto::x25519(eph.private_key.span(), server_eph);
    if (!shared) {
      fail_with(Failure::kLowOrderPoint);
      return false;
    }
    ee = std::move(*shared);
    const crypto::KdfScheme scheme = kdf_scheme(cfg.mode, cfg.bind_static);
    const crypto::DataKeys keys =
        crypto::derive_data_keys(scheme, ee.span(), ml, cfg.bind_static ? &*es_pinned : nullptr);
    send.emplace(framing(), keys.client_to_server, rng);
    recv.emplace(framing(), keys.server_to_client, rng);
    jsecret = join_secret(keys);
    return true;
  }

  void on_server_hello(ByteSpan rec) {
    auto sh = wire::parse_server_hello(rec);
    if (!sh.ok()) return fail_with(Failure::kBadServerHello);
    transcript.update(rec);
    const crypto::Key32 ml = crypto::mlkem768_decapsulate(*kem->secret_key, sh->mlkem_ct);
    kem.reset();  // the decapsulation key is single-use; wipe it now
    if (derive_keys(sh->x25519, &ml)) phase = Phase::kCcs;
  }

  void on_flight(ByteSpan rec, wire::FlightRecord expected, Phase next, bool hashed) {
    if (!wire::check_flight_record(expected, rec).ok()) return fail_with(Failure::kBadFlightRecord);
    if (hashed) transcript.update(rec);
    phase = next;
    if (next == Phase::kTicket) transcript_hash = transcript.digest();
  }

  void on_server_pub(ByteSpan& in) {
    const std::size_t take = std::min(in.size(), 32 - server_pub_buf.size());
    server_pub_buf.insert(server_pub_buf.end(), in.begin(), in.begin() + static_cast<long>(take));
    in = in.subspan(take);
    if (server_pub_buf.size() < 32) return;
    X25519Public server_eph{};
    std::memcpy(server_eph.data(), server_pub_buf.data(), 32);
    // plain transcript = SHA-256(client_pub ‖ server_pub)
    transcript_hash = crypto::sha256({ByteSpan(eph.public_key), ByteSpan(server_eph)});
    if (derive_keys(server_eph, nullptr)) phase = Phase::kProof;
  }

  // The server proof: static_pub(32) ‖ proof(32), or proof(32) alone (hidden identity).
  void on_proof(MutableByteSpan rec) {
    auto opened = recv->open_in_place(rec);
    if (!opened.ok()) {
      // With the bound KDF the keys depend on the pinned key: a server that does not hold
      // it cannot produce a record we can open. That is the key mismatch as it shows on
      // the wire (0.7.16 reports it as a decrypt failure).
      return fail_with(cfg.bind_static ? Failure::kServerKeyMismatch : Failure::kRecordAuthFailed);
    }
    const ByteSpan msg = opened->data;
    const bool hidden = msg.size() == wire::kProofSize;
    if (!hidden && msg.size() < 2 * wire::kProofSize) return fail_with(Failure::kBadProofMessage);
    if (hidden) {
      if (!cfg.pinned_server_key) return fail_with(Failure::kPinRequired);
      server_key = *cfg.pinned_server_key;
    } else {
      std::memcpy(server_key.data(), msg.data(), 32);
    }
    const ByteSpan proof = hidden ? msg.first(32) : msg.subspan(32, 32);
    auto es = crypto::x25519(eph.private_key.span(), server_key);
    if (!es) return fail_with(Failure::kLowOrderPoint);
    const crypto::Key32 expect = server_auth_proof(*es, ee, transcript_hash);
    if (!crypto::ct_equal(expect.span(), proof)) {
      // Hidden identity: the proof was computed with the server's real key, ours is the
      // pin, so a bad proof is the mismatch.
      return fail_with(hidden ? Failure::kServerKeyMismatch : Failure::kServerProofInvalid);
    }
    if (cfg.pinned_server_key && !crypto::ct_equal(*cfg.pinned_server_key, server_key)) {
      return fail_with(Failure::kServerKeyMismatch);
    }
    send_auth();
  }

  // AUTH = key_proof ‖ 00 ‖ device_id ‖ user:pass, or JOIN = QELIJOIN ‖ token ‖ idx.
  void send_auth() {
    if (cfg.join) {
      JoinMessage m = *cfg.join;
      if (cfg.join_secret) {
        const crypto::Key32 proof = join_proof(*cfg.join_secret, transcript_hash);
        m.proof.emplace();
        std::memcpy(m.proof->data(), proof.data(), 32);
      }
      const Bytes join = build_join(m);
      if (seal_and_emit(join)) phase = Phase::kReply;
      return;
    }
    AuthMessage m;
    if (es_pinned) {
      const crypto::Key32 kp = client_key_proof(*es_pinned, ee, transcript_hash);
      std::memcpy(m.key_proof.data(), kp.data(), 32);
    }  // else 32 zero bytes: nothing pinned, nothing to prove
    m.device_id = cfg.device_id;
    m.user = cfg.user;
    m.password = cfg.password;
    auto auth = build_auth(m);
    if (!auth) return fail_with(Failure::kBadAuthMessage);
    const bool ok = seal_and_emit(*auth);
    crypto::secure_wipe(auth->data(), auth->size());
    if (ok) phase = Phase::kReply;
  }

  // Seals a control frame with the session's send codec, as the next record.
  bool send_control(ClientSession& s, const Bytes& frame) {
    Bytes rec_out(wire::record_size(framing(), frame.size(), 0));
    if (!s.send.seal(frame, 0, rec_out).ok()) return false;
    emit(std::move(rec_out));
    return true;
  }
  // Negotiation is complete on our side: every record after the capability frame goes
  // AES-256-GCM, and the server's may once it read that frame (docs/PROTOCOL.md §18).
  static void start_aes(ClientSession& s) {
    s.send.set_send_aes();
    s.recv.set_accept_aes(true);
  }

  void on_reply(MutableByteSpan rec) {
    auto opened = recv->open_in_place(rec);
    if (!opened.ok()) {
      if (cfg.drop_unauthenticated_replies) return;  // a stray or forged datagram
      return fail_with(Failure::kRecordAuthFailed);
    }
    const ByteSpan p = opened->data;
    if (p.empty()) return;  // heartbeat/cover: not an answer yet
    ClientSession s{std::move(*send),
                    std::move(*recv),
                    server_key,
                    cfg.pinned_server_key.has_value(),
                    std::nullopt,
                    0,
                    {},
                    false,
                    std::move(jsecret)};
    if (cfg.join) {
      if (p.size() != kJoinOk.size() || std::memcmp(p.data(), kJoinOk.data(), p.size()) != 0) {
        return fail_with(Failure::kBadJoinReply);
      }
      if (cfg.extensions != 0) {
        // Our server offers a JOINed connection what its session's AUTH OK offered: the
        // caller passes what the session negotiated (never the TLS binding, whose proof
        // only AUTH OK carries), and this connection takes it too.
        s.negotiated_caps = cfg.extensions & ~caps::kTlsBinding;
        if (!send_control(s, wire::build_capabilities(s.negotiated_caps))) {
          return fail_with(Failure::kSealFailed);
        }
        if ((s.negotiated_caps & caps::kAesGcm) != 0) start_aes(s);
      }
    } else {
      auto ok = parse_auth_ok(p, cfg.extensions != 0);
      if (!ok.ok()) return fail_with(Failure::kBadAuthOk);
      if (ok->x_caps && cfg.extensions != 0) {
        std::uint32_t ours = cfg.extensions;
        // IPv6 inside needs the address that goes with it.
        if (!ok->x_ip6) ours &= ~caps::kIpv6Inside;
        if (!ok->x_resume_secs) ours &= ~caps::kResume;  // resume needs the grace period
        s.negotiated_caps = *ok->x_caps & ours;
        if ((s.negotiated_caps & caps::kTlsBinding) != 0) {
          // Both ends see one TLS session, or someone terminates TLS between them.
          if (!cfg.tls_exporter || !ok->x_tls_bind ||
              *ok->x_tls_bind !=
                  to_hex(tls_binding_proof(*cfg.tls_exporter, BindingSide::kServer))) {
            return fail_with(Failure::kTlsBindingMismatch);
          }
          s.tls_bound = true;
        } else {
          ours &= ~caps::kTlsBinding;
        }
        // Tell the server what we support (a control frame a 0.7.16 server skips).
        if (!send_control(s, wire::build_capabilities(ours))) {
          return fail_with(Failure::kSealFailed);
        }
        if (s.tls_bound && !send_control(s, wire::build_tls_binding(tls_binding_proof(
                                                *cfg.tls_exporter, BindingSide::kClient)))) {
          return fail_with(Failure::kSealFailed);
        }
        if ((s.negotiated_caps & caps::kAesGcm) != 0) start_aes(s);
      }
      s.auth_ok = std::move(*ok);
    }
    send.reset();
    recv.reset();
    session.emplace(std::move(s));
    phase = Phase::kDone;
  }

  void on_record(MutableByteSpan rec) {
    switch (phase) {
      case Phase::kServerHello: return on_server_hello(rec);
      case Phase::kCcs:
        return on_flight(rec, wire::FlightRecord::kChangeCipherSpec, Phase::kCertificate, false);
      case Phase::kCertificate:
        return on_flight(rec, wire::FlightRecord::kCertificate, Phase::kFinished, true);
      case Phase::kFinished:
        return on_flight(rec, wire::FlightRecord::kFinished, Phase::kTicket, true);
      case Phase::kTicket: return on_flight(rec, wire::FlightRecord::kTicket, Phase::kProof, false);
      case Phase::kProof: return on_proof(rec);
      case Phase::kReply: return on_reply(rec);
      default: return fail_with(Failure::kUnexpectedMessage);
    }
  }

  void on_bytes(ByteSpan in) {
    if (phase == Phase::kIdle) return fail_with(Failure::kUnexpectedMessage);
    if (phase == Phase::kServerPub) on_server_pub(in);
    while (!ended() && phase != Phase::kServerPub) {
      const auto next = reader.next_from(in);
      if (next.status == wire::RecordReader::Status::kError) {
        return fail_with(Failure::kRecordFraming);
      }
      if (next.status == wire::RecordReader::Status::kNeedMore) break;
      on_record(next.record);
    }
    if (phase == Phase::kDone) {
      const ByteSpan rest = reader.buffered();
      session->leftover.assign(rest.begin(), rest.end());
      append(session->leftover, in);
    }
  }
};

ClientHandshake::ClientHandshake(ClientConfig config, crypto::Rng& rng)
    : impl_(std::make_unique<Impl>(std::move(config), rng)) {}
ClientHandshake::~ClientHandshake() = default;

void ClientHandshake::start(Instant now) { impl_->start(now); }

void ClientHandshake::on_bytes(ByteSpan in, Instant now) {
  if (impl_->ended()) return;
  on_timer(now);
  if (impl_->phase == Phase::kFailed) return;
  impl_->on_bytes(in);
}

void ClientHandshake::on_peer_closed() {
  if (impl_->ended()) return;
  // After AUTH the server's only way to say "no" is to close.
  impl_->fail_with(impl_->phase == Phase::kReply ? Failure::kRejected : Failure::kPeerClosed);
}

void ClientHandshake::on_timer(Instant now) {
  if (impl_->expired(now)) impl_->fail_with(Failure::kTimeout);
}

std::vector<Outgoing> ClientHandshake::take_output() { return impl_->take_output(); }
std::optional<Instant> ClientHandshake::deadline() const { return impl_->live_deadline(); }
State ClientHandshake::state() const { return impl_->state(); }
Failure ClientHandshake::failure() const { return impl_->why; }
ClientSession ClientHandshake::take_session() { return impl_->take_session(); }

}  // namespace qeli::handshake
