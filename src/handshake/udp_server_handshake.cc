// Server datagram adapter. Steps are numbered as in the header and docs/PROTOCOL.md.
#include "handshake/udp_server_handshake.h"

#include <algorithm>
#include <cstdlib>
#include <utility>

#include "wire/udp_frag.h"

namespace qeli::handshake {

namespace {
enum class Stage : std::uint8_t { kHello, kAuth, kDecision, kDone, kFailed };

bool same(ByteSpan a, ByteSpan b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
}

std::size_t total_size(const std::vector<Bytes>& v) {
  std::size_t n = 0;
  for (const Bytes& b : v) n += b.size();
  return n;
}
}  // namespace

std::vector<Bytes> UdpAuthOkResender::on_datagram(ByteSpan datagram) {
  if (left_ <= 0 || auth_.empty() || datagram.size() != auth_.size()) return {};
  ++compared_;
  if (!std::equal(datagram.begin(), datagram.end(), auth_.begin())) return {};
  --left_;
  return reply_;
}

struct UdpServerHandshake::Impl {
  Impl(const UdpServerConfig& c, crypto::Rng& r) : cfg(c), rng(r) {
    if (cfg.inner.mode != Mode::kFakeTls) std::abort();  // plain is TCP-only: a bug
    // TCP-only disguises: on UDP the flight is one message and the fragments are ours.
    cfg.inner.fragmentation.enabled = false;
    cfg.inner.max_jitter = Duration{0};
    cfg.inner.drop_unauthenticated_records = true;
    cfg.chunk_limit = std::clamp<std::size_t>(cfg.chunk_limit, 1, wire::kFragMaxChunk);
    env.obfs = cfg.obfs;
    rng.fill(env.cid);
  }

  UdpServerConfig cfg;
  crypto::Rng& rng;
  std::unique_ptr<ServerHandshake> inner;
  wire::UdpEnvelope env;
  bool shape_known = false;
  wire::Reassembler hello_re{wire::udp_msg::kClientHello,
                             wire::kMaxHandshakeRecordPayload + wire::kTlsHeaderSize};
  Stage stage = Stage::kHello;
  Failure why = Failure::kNone;
  Bytes hello;                // the first complete ClientHello
  std::vector<Bytes> flight;  // its cached reply datagrams
  Bytes auth;                 // the AUTH datagram as received (still sealed)
  Bytes raw;                  // the datagram being handled, as received (stage kAuth)
  std::vector<Bytes> auth_ok;
  UdpAuthOkResender resender;
  std::optional<ServerEvent> event;  // the AUTH/JOIN request, until the caller takes it
  std::vector<Bytes> out;
  std::size_t received = 0, sent = 0, dropped = 0, refused = 0, challenged = 0;
  std::optional<wire::CookieNonce> marker;  // a cookie marker, until the next verdict
  std::uint32_t next_pn = 2;
  Instant started{};
  bool clock_started = false;

  void fail_with(Failure f) {
    stage = Stage::kFailed;
    why = f;
    out.clear();
    event.reset();
  }

  // Sends the cached flight if the cumulative budget allows it; otherwise a later
  // retransmit of the hello (which raises `received`) may.
  void emit_flight() {
    const std::size_t n = total_size(flight);
    if (sent + n > wire::kAmplificationFactor * received) return;
    sent += n;
    out.insert(out.end(), flight.begin(), flight.end());
    // The next emission starts one fragment later (see the client's retransmit).
    std::rotate(flight.begin(), flight.begin() + 1, flight.end());
  }

  // 2. Runs the inner handshake on a complete first hello and caches the reply.
  void on_first_hello(ByteSpan msg, Instant now) {
    inner = std::make_unique<ServerHandshake>(cfg.inner, rng);
    inner->start(started);
    inner->on_bytes(msg, now);
    std::vector<Outgoing> reply = inner->take_output();
    if (inner->state() == State::kFailed) return fail_with(inner->failure());
    Bytes whole;
    for (const Outgoing& o : reply) append(whole, o.bytes);
    auto frags = wire::fragment_message(wire::udp_msg::kServerFlight, whole, cfg.chunk_limit);
    if (!frags.ok()) return fail_with(Failure::kSealFailed);  // ~3.4 KB max: a bug
    flight.clear();
    for (std::size_t i = 0; i < frags->size(); ++i) {
      flight.push_back(env.wrap((*frags)[i], true, static_cast<std::uint32_t>(i), rng));
    }
    hello.assign(msg.begin(), msg.end());
    auth.clear();
    stage = Stage::kAuth;
    emit_flight();
  }

  void on_hello_fragment(ByteSpan msg, std::size_t datagram_size, Instant now) {
    if (stage != Stage::kHello && stage != Stage::kAuth) {
      ++dropped;
      return;
    }
    received += datagram_size;
    auto p = hello_re.add(msg, now);
    if (!p.ok() || *p != wire::Reassembler::Progress::kComplete) {
      if (!p.ok()) ++dropped;
      return;
    }
    const ByteSpan whole = hello_re.message();
    // 1. anti-amplification: a hello under 1200 bytes is never answered.
    if (whole.size() < wire::kUdpClientHelloMin) return fail_with(Failure::kHelloTooSmall);
    if (stage == Stage::kAuth && same(whole, hello)) return emit_flight();  // retransmit
    if (cfg.admit_hello) {
      const HelloVerdict v = cfg.admit_hello(now, marker.has_value());
      if (v.kind != HelloVerdict::Kind::kAdmit) {
        // Refused before any public-key crypto: silence, or just a challenge.
        if (v.kind == HelloVerdict::Kind::kChallenge && marker) challenge(*marker, v.cookie);
        marker.reset();
        ++refused;
        ++dropped;
        return;
      }
    }
    marker.reset();
    on_first_hello(Bytes(whole.begin(), whole.end()), now);
  }

  // msg 7 within the 3× budget (a ≥ 1200-byte hello was counted in: it always fits).
  void challenge(const wire::CookieNonce& nonce, const wire::Cookie& cookie) {
    Bytes d = env.wrap(wire::build_cookie_challenge({nonce, cookie}), true, 0, rng);
    if (sent + d.size() > wire::kAmplificationFactor * received) return;
    sent += d.size();
    out.push_back(std::move(d));
    ++challenged;
  }

  // A junk datagram: a cookie marker is remembered until the next hello's verdict (also
  // while an AUTH is awaited: a client restarted behind the same port sends a new hello).
  void on_junk(ByteSpan msg, std::size_t datagram_size) {
    auto nonce = wire::parse_cookie_marker(msg);
    if (!nonce.ok() || (stage != Stage::kHello && stage != Stage::kAuth)) {
      ++dropped;
      return;
    }
    received += datagram_size;
    marker = *nonce;
  }

  void on_cookie_echo(ByteSpan msg, std::size_t datagram_size, Instant now) {
    if (!cfg.on_cookie || (stage != Stage::kHello && stage != Stage::kAuth)) {
      ++dropped;
      return;
    }
    received += datagram_size;
    auto cookie = wire::parse_cookie_echo(msg);
    if (!cookie.ok()) ++dropped;
    cfg.on_cookie(cookie.ok() ? std::optional(*cookie) : std::nullopt, now);
  }

  void on_record(ByteSpan rec, std::size_t datagram_size, Instant now) {
    if (stage != Stage::kAuth) {
      ++dropped;  // before the flight, or a retransmitted AUTH while we decide
      return;
    }
    received += datagram_size;
    // 3. AUTH: the inner machine opens it and emits the event for the caller; a record
    //    that does not open (forged, stray) is dropped there and we keep waiting.
    inner->on_bytes(rec, now);
    if (inner->state() == State::kFailed) return fail_with(inner->failure());
    if (inner->take_output().size() != 0) return fail_with(Failure::kUnexpectedMessage);
    event = inner->take_event();
    if (!event) {
      ++dropped;
      return;
    }
    auth = std::move(raw);
    stage = Stage::kDecision;
  }

  void on_datagram(MutableByteSpan d, Instant now) {
    if (stage == Stage::kFailed) {
      ++dropped;
      return;
    }
    if (stage != Stage::kDone) {
      on_timer(now);
      if (stage == Stage::kFailed) return;
    }
    if (stage == Stage::kDone) {
      // 4. a retransmitted AUTH, compared as received: nothing is opened.
      auto again = resender.on_datagram(d);
      if (again.empty()) ++dropped;
      out.insert(out.end(), again.begin(), again.end());
      return;
    }
    // While the AUTH is awaited, keep the datagram as received: it may be the AUTH,
    // which the client re-sends byte for byte (the seal below opens in place).
    if (stage == Stage::kAuth) raw.assign(d.begin(), d.end());
    const std::size_t size = d.size();
    MutableByteSpan body = d;
    if (env.obfs != nullptr) {
      auto p = env.obfs->open(d);
      if (!p.ok()) {
        ++dropped;
        return;
      }
      body = *p;
    }
    if (!shape_known) {
      // The first datagram decides the shape for the whole session.
      env.quic = wire::looks_like_quic(body);
      shape_known = true;
    }
    ByteSpan msg = body;
    if (env.quic) {
      auto q = wire::parse_quic(body);
      if (!q.ok()) {
        ++dropped;
        return;
      }
      msg = q->payload;
    }
    switch (wire::classify_datagram(msg)) {
      case wire::DatagramKind::kClientHelloFragment: return on_hello_fragment(msg, size, now);
      case wire::DatagramKind::kDataRecord: return on_record(msg, size, now);
      case wire::DatagramKind::kJunk: return on_junk(msg, size);
      case wire::DatagramKind::kCookieEcho: return on_cookie_echo(msg, size, now);
      default: ++dropped;  // probes before auth, unknown, legacy hellos
    }
  }

  void on_timer(Instant now) {
    // Before its first datagram the half-open state has no clock, so nothing can expire.
    if (!clock_started || stage == Stage::kDone || stage == Stage::kFailed) return;
    if (inner == nullptr) {
      if (now - started >= cfg.inner.timeout) return fail_with(Failure::kTimeout);
    } else {
      inner->on_timer(now);
      if (inner->state() == State::kFailed) return fail_with(inner->failure());
    }
    hello_re.expire(now);
  }

  // 4. AUTH OK: one datagram, or msg 6 fragments; PN 1.. under the QUIC shape.
  void finish() {
    std::vector<Outgoing> reply = inner->take_output();
    if (inner->state() != State::kDone) return fail_with(inner->failure());
    Bytes rec;
    for (const Outgoing& o : reply) append(rec, o.bytes);
    std::vector<Bytes> inner_dgrams;
    if (rec.size() <= cfg.chunk_limit) {
      inner_dgrams.push_back(std::move(rec));
    } else {
      auto frags = wire::fragment_message(wire::udp_msg::kAuthOk, rec, cfg.chunk_limit);
      if (!frags.ok()) return fail_with(Failure::kSealFailed);  // AUTH OK ≤ 8 KiB: a bug
      inner_dgrams = std::move(*frags);
    }
    std::uint32_t pn = 1;
    for (const Bytes& b : inner_dgrams) auth_ok.push_back(env.wrap(b, true, pn++, rng));
    next_pn = std::max<std::uint32_t>(pn, 2);
    out.insert(out.end(), auth_ok.begin(), auth_ok.end());
    resender = UdpAuthOkResender(auth, auth_ok);
    stage = Stage::kDone;
  }
};

UdpServerHandshake::UdpServerHandshake(const UdpServerConfig& config, crypto::Rng& rng)
    : impl_(std::make_unique<Impl>(config, rng)) {}
UdpServerHandshake::~UdpServerHandshake() = default;

void UdpServerHandshake::on_datagram(MutableByteSpan d, Instant now) {
  if (!impl_->clock_started) {
    impl_->clock_started = true;
    impl_->started = now;  // the half-open state's clock starts at its first datagram
  }
  impl_->on_datagram(d, now);
}
void UdpServerHandshake::on_timer(Instant now) { impl_->on_timer(now); }
std::vector<Bytes> UdpServerHandshake::take_datagrams() { return std::exchange(impl_->out, {}); }

std::optional<ServerEvent> UdpServerHandshake::take_event() {
  return std::exchange(impl_->event, std::nullopt);
}

void UdpServerHandshake::accept(AuthOk ok) {
  if (impl_->stage != Stage::kDecision) return;
  impl_->inner->accept(std::move(ok));
  impl_->finish();
}

void UdpServerHandshake::accept_join() {
  if (impl_->stage != Stage::kDecision) return;
  impl_->inner->accept_join();
  impl_->finish();
}

void UdpServerHandshake::reject() {
  if (impl_->stage != Stage::kDecision) return;
  impl_->inner->reject();
  impl_->fail_with(Failure::kRejected);
}

std::optional<Instant> UdpServerHandshake::deadline() const {
  if (impl_->stage == Stage::kDone || impl_->stage == Stage::kFailed) return std::nullopt;
  if (!impl_->clock_started) return std::nullopt;  // no timer before the first datagram
  std::optional<Instant> d = impl_->inner
                                 ? impl_->inner->deadline()
                                 : std::optional(impl_->started + impl_->cfg.inner.timeout);
  if (auto r = impl_->hello_re.deadline(); r && (!d || *r < *d)) d = r;
  return d;
}

State UdpServerHandshake::state() const {
  if (impl_->stage == Stage::kDone) return State::kDone;
  if (impl_->stage == Stage::kFailed) return State::kFailed;
  return State::kRunning;
}

Failure UdpServerHandshake::failure() const { return impl_->why; }
std::size_t UdpServerHandshake::dropped() const { return impl_->dropped; }
std::size_t UdpServerHandshake::refused() const { return impl_->refused; }
std::size_t UdpServerHandshake::challenged() const { return impl_->challenged; }
bool UdpServerHandshake::idle() const {
  return impl_->inner == nullptr && impl_->hello_re.held_bytes() == 0 && !impl_->marker;
}
bool UdpServerHandshake::has_hello() const { return impl_->inner != nullptr; }
std::size_t UdpServerHandshake::bytes_received() const { return impl_->received; }
std::size_t UdpServerHandshake::pre_auth_bytes_sent() const { return impl_->sent; }

UdpServerSession UdpServerHandshake::take_session() {
  if (impl_->stage != Stage::kDone) std::abort();
  UdpServerSession s{impl_->inner->take_session(), impl_->env, impl_->next_pn,
                     std::move(impl_->resender)};
  s.session.leftover.clear();
  impl_->resender = UdpAuthOkResender();
  return s;
}

}  // namespace qeli::handshake
