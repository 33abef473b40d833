#include "tls/client_handshake.h"

#include <algorithm>

#include "crypto/ct.h"
#include "tls/cert_compression.h"
#include "tls/certificate.h"
#include "tls/client_hello.h"
#include "tls/handshake_messages.h"
#include "tls/hello_writer.h"
#include "tls/server_hello.h"

namespace qeli::tls {

ClientHandshake::ClientHandshake(BuiltClientHello hello, ClientHandshakeConfig config)
    : hello_(std::move(hello)), config_(std::move(config)) {}

void ClientHandshake::start(Instant now) {
  deadline_ = now + config_.timeout;
  append(out_, hello_.record);
  transcript_.add(hello_message(hello_.record));
}

void ClientHandshake::fail_with(TlsError e) {
  // The alert we owe, protected once the server's handshake keys exist on our side
  // (our client handshake key), in the clear before that (§6).
  fail_with_alert(e, suite_, hs_secrets_ ? &hs_secrets_->client : nullptr);
}

void ClientHandshake::on_bytes(ByteSpan in, Instant now) {
  (void)now;
  if (state_ == State::kDone && established_) {
    append(established_->leftover, in);
    return;
  }
  if (state_ != State::kRunning) return;
  if (auto s = buf_.append(in); !s) return fail_with(s.error());
  process();
}

void ClientHandshake::on_peer_closed() { fail_with(TlsError::kPeerClosed); }

void ClientHandshake::on_timer(Instant now) {
  if (expired(now)) fail_with(TlsError::kTimeout);
}

void ClientHandshake::process() {
  while (state_ == State::kRunning) {
    auto r = buf_.next();
    if (!r) return fail_with(r.error());
    if (!r->has_value()) return;
    const RecordView v = **r;
    FlightRecord fr{v.type, v.record.size(), v.body().size(), {}};
    flight_.records.push_back(fr);
    Status<TlsError> s = step_ == Step::kServerHello ? on_plaintext(v) : on_encrypted(v);
    if (!s) return fail_with(s.error());
  }
}

Status<TlsError> ClientHandshake::on_plaintext(const RecordView& v) {
  if (v.type == ContentType::kAlert) {
    auto a = parse_alert(v.body());
    if (a) peer_alert_ = a->description;
    return fail(TlsError::kPeerAlert);
  }
  if (v.type != ContentType::kHandshake) return fail(TlsError::kUnexpectedMessage);
  if (auto s = hs_.add(v.body()); !s) return s;
  auto m = hs_.next();
  if (!m) return fail(m.error());
  if (!m->has_value()) return {};
  flight_.records.back().messages.push_back((*m)->type);
  if (auto s = on_server_hello(**m); !s) return s;
  // The keys change after the ServerHello: nothing may follow it in this record (§5.1).
  if (!hs_.at_boundary()) return fail(TlsError::kUnexpectedMessage);
  return {};
}

Status<TlsError> ClientHandshake::on_server_hello(const HandshakeMessage& m) {
  if (m.type != HandshakeType::kServerHello) return fail(TlsError::kUnexpectedMessage);
  auto sh = parse_server_hello(m.message);
  if (!sh) return fail(sh.error());
  if (sh->hello_retry) return fail(TlsError::kHandshakeFailure);
  if (!sh->selected_version || *sh->selected_version != kVersionTls13 ||
      sh->legacy_version != kLegacyVersion) {
    return fail(TlsError::kProtocolVersion);
  }
  const ByteSpan our_sid = ByteSpan(hello_.record).subspan(kSessionIdOffsetInRecord, 32);
  if (!std::equal(sh->session_id.begin(), sh->session_id.end(), our_sid.begin(), our_sid.end())) {
    return fail(TlsError::kIllegalParameter);
  }
  for (const Extension& e : sh->extensions) {
    if (e.type != ext::kSupportedVersions && e.type != ext::kKeyShare) {
      return fail(TlsError::kIllegalParameter);
    }
  }
  const auto suite = cipher_suite_from_code(sh->cipher_suite);
  if (!suite ||
      std::find(config_.suites.begin(), config_.suites.end(), *suite) == config_.suites.end()) {
    return fail(TlsError::kUnsupportedSuite);
  }
  if (!sh->key_share) return fail(TlsError::kHandshakeFailure);
  auto shared = hello_.keys.agree(sh->key_share->group, sh->key_share->key_exchange);
  if (!shared) return fail(shared.error());
  suite_ = *suite;
  group_ = sh->key_share->group;
  flight_.server_hello.assign(m.message.begin(), m.message.end());
  transcript_.set_algorithm(hash_of(suite_));
  transcript_.add(m.message);
  schedule_.emplace(suite_);
  schedule_->with_shared_secret(shared->span());
  hs_secrets_ = schedule_->handshake_secrets(transcript_.hash().span());
  server_hs_.emplace(suite_, hs_secrets_->server);
  if (group_ == group::kX25519MlKem768 && hello_.keys.separate_hybrid_key()) {
    auto alt = hello_.keys.agree(group_, sh->key_share->key_exchange, true);
    if (!alt) return fail(alt.error());
    alt_schedule_.emplace(suite_);
    alt_schedule_->with_shared_secret(alt->span());
    alt_secrets_ = alt_schedule_->handshake_secrets(transcript_.hash().span());
    alt_server_hs_.emplace(suite_, alt_secrets_->server);
  }
  step_ = Step::kEncryptedExtensions;
  return {};
}

Result<OpenedRecord, TlsError> ClientHandshake::open_first_or_next(MutableByteSpan record) {
  if (!alt_server_hs_) return server_hs_->open(record);
  // The first encrypted record decides between the two candidates (see the header).
  // Opening works in place and a failed open leaves garbage: keep a copy for the second.
  Bytes copy(record.begin(), record.end());
  auto o = server_hs_->open(record);
  if (!o) {
    std::copy(copy.begin(), copy.end(), record.begin());
    o = alt_server_hs_->open(record);
    if (o) {
      schedule_ = std::move(alt_schedule_);
      hs_secrets_ = std::move(alt_secrets_);
      server_hs_ = std::move(alt_server_hs_);
      used_alt_ = true;
    }
  }
  alt_schedule_.reset();
  alt_secrets_.reset();
  alt_server_hs_.reset();
  return o;
}

Status<TlsError> ClientHandshake::on_encrypted(RecordView v) {
  if (v.type == ContentType::kChangeCipherSpec) {
    // §5: one dummy CCS of exactly 01 may arrive before the server Finished.
    if (seen_ccs_ || v.body().size() != 1 || v.body()[0] != 0x01) {
      return fail(TlsError::kUnexpectedMessage);
    }
    seen_ccs_ = true;
    return {};
  }
  if (v.type != ContentType::kApplicationData) return fail(TlsError::kUnexpectedMessage);
  auto o = open_first_or_next(v.record);
  if (!o) return fail(o.error());
  if (o->type == ContentType::kAlert) {
    auto a = parse_alert(o->content);
    if (a) peer_alert_ = a->description;
    return fail(TlsError::kPeerAlert);
  }
  if (o->type != ContentType::kHandshake) return fail(TlsError::kUnexpectedMessage);
  flight_.records.back().content_size = o->content.size();
  if (auto s = hs_.add(o->content); !s) return s;
  for (;;) {
    auto m = hs_.next();
    if (!m) return fail(m.error());
    if (!m->has_value()) return {};
    flight_.records.back().messages.push_back((*m)->type);
    if (auto s = on_flight_message(**m); !s) return s;
    if (step_ == Step::kDone) {
      // Keys change after the server Finished: it must end its record (§5.1).
      if (!hs_.at_boundary()) return fail(TlsError::kUnexpectedMessage);
      finish();
      return {};
    }
  }
}

Status<TlsError> ClientHandshake::on_flight_message(const HandshakeMessage& m) {
  switch (step_) {
    case Step::kEncryptedExtensions: {
      if (m.type != HandshakeType::kEncryptedExtensions) return fail(TlsError::kUnexpectedMessage);
      auto ee = parse_encrypted_extensions(m.body);
      if (!ee) return fail(ee.error());
      if (ee->alpn) {
        const bool offered = *ee->alpn == "h2" || *ee->alpn == "http/1.1";
        if (!offered) return fail(TlsError::kIllegalParameter);
        alpn_ = std::string(*ee->alpn);
      }
      flight_.encrypted_extensions.assign(m.message.begin(), m.message.end());
      step_ = Step::kCertificate;
      break;
    }
    case Step::kCertificate: {
      if (m.type == HandshakeType::kCertificate) {
        auto c = parse_certificate(m.body);
        if (!c) return fail(c.error());
        if (c->entries.empty()) return fail(TlsError::kBadCertificate);
        flight_.certificate_body.assign(m.body.begin(), m.body.end());
      } else if (m.type == HandshakeType::kCompressedCertificate) {
        auto cc = parse_compressed_certificate(m.body);
        if (!cc) return fail(cc.error());
        auto ch = parse_client_hello(hello_message(hello_.record));
        if (!ch || !ch->offers_cert_compression(cc->algorithm)) {
          return fail(TlsError::kIllegalParameter);
        }
        auto body = decompress_certificate(cc->algorithm, cc->compressed, cc->uncompressed_length);
        if (!body) return fail(body.error());
        auto c = parse_certificate(*body);
        if (!c || c->entries.empty()) return fail(TlsError::kBadCertificate);
        flight_.certificate_body = std::move(*body);
        flight_.certificate_compression = cc->algorithm;
      } else {
        // CertificateRequest (client auth) or anything else: not for us.
        return fail(TlsError::kUnexpectedMessage);
      }
      flight_.certificate.assign(m.message.begin(), m.message.end());
      step_ = Step::kCertificateVerify;
      break;
    }
    case Step::kCertificateVerify: {
      if (m.type != HandshakeType::kCertificateVerify) return fail(TlsError::kUnexpectedMessage);
      auto cv = parse_certificate_verify(m.body);
      if (!cv) return fail(cv.error());
      flight_.certificate_verify.assign(m.message.begin(), m.message.end());
      step_ = Step::kFinished;
      break;
    }
    case Step::kFinished: {
      if (m.type != HandshakeType::kFinished) return fail(TlsError::kUnexpectedMessage);
      const auto want =
          finished_verify_data(suite_, hs_secrets_->server, transcript_.hash().span());
      if (!crypto::ct_equal(m.body, want.span())) return fail(TlsError::kBadFinished);
      flight_.finished.assign(m.message.begin(), m.message.end());
      step_ = Step::kDone;
      break;
    }
    default: return fail(TlsError::kUnexpectedMessage);
  }
  transcript_.add(m.message);
  return {};
}

void ClientHandshake::finish() {
  ApplicationSecrets ap = schedule_->application_secrets(transcript_.hash().span());
  const auto verify = finished_verify_data(suite_, hs_secrets_->client, transcript_.hash().span());
  const Bytes fin = finished_message(verify.span());
  transcript_.add(fin);
  // Middlebox compatibility (§D.4): Chrome sends a dummy CCS before its Finished.
  append(out_, kDummyCcs);
  RecordProtection client_hs(suite_, hs_secrets_->client);
  Bytes rec(kRecordHeaderSize + fin.size() + seal_tail(0));
  std::copy(fin.begin(), fin.end(), rec.begin() + kRecordHeaderSize);
  auto n = client_hs.seal(rec, fin.size(), ContentType::kHandshake);
  if (!n) return fail_with(n.error());
  rec.resize(*n);
  append(out_, rec);
  established_ = ClientEstablished{suite_,
                                   group_,
                                   alpn_,
                                   std::move(ap.client),
                                   std::move(ap.server),
                                   std::move(ap.exporter_master),
                                   buf_.take_unread()};
  state_ = State::kDone;
  deadline_.reset();
}

ClientEstablished ClientHandshake::into_established() {
  if (state_ != State::kDone || !established_) std::abort();
  ClientEstablished e = std::move(*established_);
  established_.reset();
  return e;
}

}  // namespace qeli::tls
