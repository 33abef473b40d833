#include "tls/terminator.h"

#include <algorithm>

#include "crypto/ct.h"
#include "tls/certificate.h"
#include "tls/fake_signature.h"
#include "tls/handshake_messages.h"
#include "tls/key_exchange.h"
#include "tls/server_hello.h"
#include "wire/byte_io.h"

namespace qeli::tls {
namespace {

constexpr std::size_t kRecordOverhead = kRecordHeaderSize + 1 + kAeadTagSize;

bool offered_alpn(const ClientHelloInfo& ch, std::string_view p) {
  return std::find(ch.alpn.begin(), ch.alpn.end(), p) != ch.alpn.end();
}

// Maps an offset in the target's flight to ours, message by message: within message k
// the same distance from its start, never past its end (our CV may be a byte or two
// shorter or longer than the target's was).
std::size_t map_offset(std::size_t e, const std::array<std::size_t, 5>& theirs,
                       const std::array<std::size_t, 5>& ours) {
  for (std::size_t k = 0; k < 4; ++k) {
    if (e <= theirs[k + 1]) {
      if (e == theirs[k + 1]) return ours[k + 1];
      return std::min(ours[k] + (e - theirs[k]), ours[k + 1]);
    }
  }
  return ours[4];
}

}  // namespace

Terminator::Terminator(TerminatorConfig config, crypto::Rng& rng)
    : config_(std::move(config)), rng_(rng) {}

void Terminator::start(Instant now) { deadline_ = now + config_.timeout; }

void Terminator::fail_with(TlsError e) {
  // The client expects our alerts under our handshake key once it has derived it.
  fail_with_alert(e, suite_, hs_secrets_ ? &hs_secrets_->server : nullptr);
}

void Terminator::on_bytes(ByteSpan in, Instant now) {
  (void)now;
  if (state_ == State::kDone && established_) {
    // Bytes before into_established() belong to the data phase; the receiver's buffer
    // bounds them (a peer flooding us before the owner reads is the owner's failure).
    (void)established_->receiver->buffer().append(in);
    return;
  }
  if (state_ != State::kRunning) return;
  if (auto s = buf_.append(in); !s) return fail_with(s.error());
  process();
}

void Terminator::on_peer_closed() { fail_with(TlsError::kPeerClosed); }

void Terminator::on_timer(Instant now) {
  if (expired(now)) fail_with(TlsError::kTimeout);
}

void Terminator::process() {
  while (state_ == State::kRunning) {
    auto r = buf_.next();
    if (!r) return fail_with(r.error());
    if (!r->has_value()) return;
    const RecordView v = **r;
    if (step_ == Step::kClientHello) {
      if (v.type == ContentType::kAlert) {
        if (auto a = parse_alert(v.body())) peer_alert_ = a->description;
        return fail_with(TlsError::kPeerAlert);
      }
      if (v.type != ContentType::kHandshake) return fail_with(TlsError::kUnexpectedMessage);
      if (auto s = hs_.add(v.body()); !s) return fail_with(s.error());
      auto m = hs_.next();
      if (!m) return fail_with(m.error());
      if (!m->has_value()) continue;  // a ClientHello split over several records
      if (auto s = on_client_hello(**m); !s) return fail_with(s.error());
      if (!hs_.at_boundary()) return fail_with(TlsError::kUnexpectedMessage);
    } else {
      if (auto s = on_client_record(v); !s) return fail_with(s.error());
    }
  }
}

Bytes Terminator::encrypted_extensions_for(const ClientHelloInfo& ch) {
  const Bytes& theirs = config_.shape->encrypted_extensions;
  auto ee = parse_encrypted_extensions(ByteSpan(theirs).subspan(kHandshakeHeaderSize));
  if (!ee) return theirs;  // the shape's own bytes; the client folds them in either way
  if (!ee->alpn || offered_alpn(ch, *ee->alpn)) {
    if (ee->alpn) alpn_ = std::string(*ee->alpn);
    return theirs;
  }
  // The client did not offer the target's protocol: http/1.1 if it offered that, else no
  // ALPN at all; the other extensions stay as the target sent them.
  std::optional<std::string_view> pick;
  if (offered_alpn(ch, "http/1.1")) pick = "http/1.1";
  Bytes block;
  wire::ByteWriter w(block);
  for (const Extension& e : ee->extensions) {
    if (e.type == ext::kAlpn) {
      if (pick) wire::write_protocol_list(w, ext::kAlpn, {*pick});
      continue;
    }
    wire::write_extension(w, e.type, e.data);
  }
  if (pick) alpn_ = std::string(*pick);
  Bytes body;
  wire::ByteWriter bw(body);
  bw.vec16(block);
  Bytes out;
  append_handshake(out, HandshakeType::kEncryptedExtensions, body);
  return out;
}

Status<TlsError> Terminator::on_client_hello(const HandshakeMessage& m) {
  if (m.type != HandshakeType::kClientHello) return fail(TlsError::kUnexpectedMessage);
  auto parsed = parse_client_hello(m.message);
  if (!parsed) return fail(parsed.error());
  const ClientHelloInfo& ch = *parsed;
  if (!ch.offers_tls13()) return fail(TlsError::kProtocolVersion);
  family_ = classify_hello(ch);
  const TargetShape& shape = *config_.shape;

  // Suite: the target's, if this client offered it and can do it.
  auto usable = [&](CipherSuite s) {
    if (!ch.offers_suite(code_of(s))) return false;
    return family_ != HelloFamily::kQeli0716Realtls || s != CipherSuite::kChaCha20Poly1305Sha256;
  };
  std::optional<CipherSuite> suite;
  if (usable(shape.suite)) suite = shape.suite;
  for (std::uint16_t c : ch.cipher_suites) {
    if (suite) break;
    if (auto s = cipher_suite_from_code(c); s && usable(*s)) suite = s;
  }
  if (!suite) return fail(TlsError::kHandshakeFailure);
  // Group: the target's, if the client sent a share for it; else the other one we do.
  std::uint16_t group = 0;
  for (std::uint16_t g : {shape.group, group::kX25519MlKem768, group::kX25519}) {
    if (ch.key_share(g) && (g == group::kX25519 || g == group::kX25519MlKem768)) {
      group = g;
      break;
    }
  }
  if (group == 0) return fail(TlsError::kHandshakeFailure);
  Bytes client_share(ch.key_share(group)->key_exchange.begin(),
                     ch.key_share(group)->key_exchange.end());
  if (config_.emulate_qeli0716_hybrid && group == group::kX25519MlKem768 &&
      ch.key_share(group::kX25519) && client_share.size() > 32) {
    const ByteSpan x = ch.key_share(group::kX25519)->key_exchange;
    if (x.size() == 32) std::copy(x.begin(), x.end(), client_share.end() - 32);
  }
  auto kx = server_key_exchange(group, client_share, rng_);
  if (!kx) return fail(kx.error());
  suite_ = *suite;
  group_ = group;

  // ServerHello in the target's extension order.
  ServerHelloParams sp;
  rng_.fill(sp.random);
  sp.session_id = ch.session_id;
  sp.cipher_suite = code_of(suite_);
  bool has_sv = false, has_ks = false;
  for (std::uint16_t t : shape.server_hello_extensions) {
    if (t == ext::kSupportedVersions && !has_sv) {
      sp.extensions.push_back({t, {0x03, 0x04}});
      has_sv = true;
    } else if (t == ext::kKeyShare && !has_ks) {
      sp.extensions.push_back({t, server_key_share_body(group_, kx->key_exchange)});
      has_ks = true;
    }
  }
  if (!has_sv) sp.extensions.push_back({ext::kSupportedVersions, {0x03, 0x04}});
  if (!has_ks)
    sp.extensions.push_back({ext::kKeyShare, server_key_share_body(group_, kx->key_exchange)});
  const Bytes sh = build_server_hello(sp);

  transcript_.add(m.message);
  transcript_.set_algorithm(hash_of(suite_));
  transcript_.add(sh);
  schedule_.emplace(suite_);
  schedule_->with_shared_secret(kx->shared.span());
  hs_secrets_ = schedule_->handshake_secrets(transcript_.hash().span());

  out_.push_back(static_cast<std::uint8_t>(ContentType::kHandshake));
  out_.push_back(0x03);
  out_.push_back(0x03);
  out_.push_back(static_cast<std::uint8_t>(sh.size() >> 8));
  out_.push_back(static_cast<std::uint8_t>(sh.size()));
  append(out_, sh);
  // The dummy CCS goes out in compatibility mode, i.e. only to a client that sent a
  // session id (§D.4), and only if the target sends one.
  if (shape.change_cipher_spec && !ch.session_id.empty()) append(out_, kDummyCcs);

  // The flight: EE ‖ Certificate ‖ CertificateVerify ‖ Finished.
  const Bytes ee = encrypted_extensions_for(ch);
  Bytes cert;
  const bool compressed = shape.certificate_compression != 0 &&
                          !shape.compressed_certificate.empty() &&
                          ch.offers_cert_compression(shape.certificate_compression);
  if (compressed) {
    cert = shape.compressed_certificate;
  } else {
    append_handshake(cert, HandshakeType::kCertificate, shape.certificate_body);
  }
  Bytes cv;
  append_handshake(
      cv, HandshakeType::kCertificateVerify,
      build_certificate_verify(shape.signature_scheme,
                               fake_signature(shape.signature_scheme, shape.signature_size, rng_)));
  transcript_.add(ee);
  transcript_.add(cert);
  transcript_.add(cv);
  const auto verify = finished_verify_data(suite_, hs_secrets_->server, transcript_.hash().span());
  const Bytes fin = finished_message(verify.span());
  transcript_.add(fin);
  app_secrets_ = schedule_->application_secrets(transcript_.hash().span());

  Bytes flight = ee;
  append(flight, cert);
  append(flight, cv);
  append(flight, fin);
  const std::array<std::size_t, 5> ours = {0, ee.size(), ee.size() + cert.size(),
                                           ee.size() + cert.size() + cv.size(), flight.size()};
  const std::size_t t_ee = shape.encrypted_extensions.size();
  const std::size_t t_cert = compressed || shape.certificate_compression == 0
                                 ? shape.certificate_message_size()
                                 : kHandshakeHeaderSize + shape.certificate_body.size();
  const std::size_t t_cv = kHandshakeHeaderSize + 4 + shape.signature_size;
  const std::array<std::size_t, 5> theirs = {0, t_ee, t_ee + t_cert, t_ee + t_cert + t_cv,
                                             t_ee + t_cert + t_cv + fin.size()};
  // When we could not send what the target sent (it compressed, this client did not
  // offer that), its record boundaries do not apply: one record per message.
  std::vector<FlightRecordShape> layout = shape.flight_records;
  if (shape.certificate_compression != 0 && !compressed) {
    layout = {{t_ee, 0}, {theirs[2], 0}, {theirs[3], 0}, {theirs[4], 0}};
  }
  RecordProtection server_hs(suite_, hs_secrets_->server);
  std::size_t pos = 0;
  for (std::size_t i = 0; i < layout.size() && pos < flight.size(); ++i) {
    std::size_t end =
        i + 1 == layout.size() ? flight.size() : map_offset(layout[i].content_end, theirs, ours);
    end = std::min(end, flight.size());
    while (pos < end) {
      const std::size_t room = kMaxPlaintext;
      const std::size_t n = std::min(end - pos, room);
      const std::size_t pad = std::min(layout[i].padding, kMaxInnerPlaintext - n - 1);
      Bytes rec(kRecordHeaderSize + n + seal_tail(pad));
      std::copy(flight.begin() + static_cast<std::ptrdiff_t>(pos),
                flight.begin() + static_cast<std::ptrdiff_t>(pos + n),
                rec.begin() + kRecordHeaderSize);
      auto sealed = server_hs.seal(rec, n, ContentType::kHandshake, pad);
      if (!sealed) return fail(sealed.error());
      rec.resize(*sealed);
      append(out_, rec);
      pos += n;
    }
  }
  client_hs_.emplace(suite_, hs_secrets_->client);
  step_ = Step::kClientFinished;
  return {};
}

Status<TlsError> Terminator::on_client_record(RecordView v) {
  if (v.type == ContentType::kChangeCipherSpec) {
    if (seen_ccs_ || v.body().size() != 1 || v.body()[0] != 0x01)
      return fail(TlsError::kUnexpectedMessage);
    seen_ccs_ = true;
    return {};
  }
  if (v.type == ContentType::kAlert) {  // a plaintext alert from a client that lost track
    if (auto a = parse_alert(v.body())) peer_alert_ = a->description;
    return fail(TlsError::kPeerAlert);
  }
  if (v.type != ContentType::kApplicationData) return fail(TlsError::kUnexpectedMessage);
  auto o = client_hs_->open(v.record);
  if (!o) return fail(o.error());
  if (o->type == ContentType::kAlert) {
    if (auto a = parse_alert(o->content)) peer_alert_ = a->description;
    return fail(TlsError::kPeerAlert);
  }
  if (o->type != ContentType::kHandshake) return fail(TlsError::kUnexpectedMessage);
  if (auto s = hs_.add(o->content); !s) return s;
  auto m = hs_.next();
  if (!m) return fail(m.error());
  if (!m->has_value()) return {};
  if ((*m)->type != HandshakeType::kFinished) return fail(TlsError::kUnexpectedMessage);
  const auto want = finished_verify_data(suite_, hs_secrets_->client, transcript_.hash().span());
  if (!crypto::ct_equal((*m)->body, want.span())) return fail(TlsError::kBadFinished);
  if (!hs_.at_boundary()) return fail(TlsError::kUnexpectedMessage);  // keys change (§5.1)
  transcript_.add((*m)->message);

  auto signal = std::make_shared<KeyUpdateSignal>();
  sender_ = std::make_unique<RecordSender>(suite_, app_secrets_->server.clone(), signal, false);
  send_tickets();
  auto receiver = std::make_unique<RecordReceiver>(suite_, app_secrets_->client.clone(), signal);
  if (auto s = receiver->buffer().append(buf_.unread()); !s) return fail(s.error());
  buf_.take_unread();
  established_ = ServerEstablished{suite_,
                                   group_,
                                   family_,
                                   alpn_,
                                   std::move(app_secrets_->exporter_master),
                                   std::move(sender_),
                                   std::move(receiver)};
  state_ = State::kDone;
  step_ = Step::kDone;
  deadline_.reset();
  return {};
}

void Terminator::send_tickets() {
  for (const TicketRecordShape& tr : config_.shape->ticket_records) {
    Bytes content;
    for (const TicketShape& t : tr.tickets) {
      std::uint8_t age_add[4];
      rng_.fill(age_add);
      Bytes ticket(std::max<std::size_t>(t.ticket_size, 1));
      rng_.fill(ticket);
      const std::uint32_t add = (std::uint32_t{age_add[0]} << 24) |
                                (std::uint32_t{age_add[1]} << 16) |
                                (std::uint32_t{age_add[2]} << 8) | age_add[3];
      append_handshake(content, HandshakeType::kNewSessionTicket,
                       build_new_session_ticket(t.lifetime, add, t.nonce, ticket, t.extensions));
    }
    if (content.empty() || content.size() > kMaxPlaintext) continue;
    const std::size_t pad = std::min(tr.padding, kMaxInnerPlaintext - content.size() - 1);
    Bytes rec(kRecordHeaderSize + content.size() + seal_tail(pad));
    std::copy(content.begin(), content.end(), rec.begin() + kRecordHeaderSize);
    auto n = sender_->seal(rec, content.size(), ContentType::kHandshake, pad);
    if (!n) continue;
    rec.resize(*n);
    append(out_, rec);
  }
  // The target's unprompted data records, as padding-only records of the same sizes, to
  // clients that skip them (ours; a 0.7.16 realtls client would read an empty record as
  // the end of the stream).
  if (family_ != HelloFamily::kChromium156) return;
  for (std::size_t size : config_.shape->unprompted_records) {
    const std::size_t overhead = kRecordHeaderSize + 1 + kAeadTagSize;
    if (size < overhead || size > kMaxRecordSize) continue;
    Bytes rec(size);
    auto n = sender_->seal(rec, 0, ContentType::kApplicationData, size - overhead);
    if (n) append(out_, ByteSpan(rec).first(*n));
  }
}

ServerEstablished Terminator::into_established() {
  if (state_ != State::kDone || !established_) std::abort();
  ServerEstablished e = std::move(*established_);
  established_.reset();
  return e;
}

}  // namespace qeli::tls
