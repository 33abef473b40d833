// Client datagram adapter. Steps are numbered as in the header and docs/PROTOCOL.md.
#include "handshake/udp_client_handshake.h"

#include <algorithm>
#include <cstdlib>

#include "wire/udp_cookie.h"
#include "wire/udp_frag.h"

namespace qeli::handshake {

namespace {
enum class Stage : std::uint8_t { kIdle, kHello, kAuth, kDone, kFailed };

// The AUTH datagram's packet number under the QUIC shape (fragments use their index).
constexpr std::uint32_t kAuthPacketNumber = 1;
}  // namespace

struct UdpClientHandshake::Impl {
  Impl(UdpClientConfig c, crypto::Rng& r) : cfg(std::move(c)), rng(r), inner(prepare(cfg), r) {
    attempt = cfg.inner.timeout - cfg.auth_patience;
  }

  static ClientConfig prepare(UdpClientConfig& c) {
    // A UDP handshake is always the fake-TLS flight (plain is TCP-only) and its hello is
    // at least 1200 bytes so the server may answer it (anti-amplification).
    if (c.inner.mode != Mode::kFakeTls) std::abort();
    c.inner.pad_to_min = std::max(c.inner.pad_to_min, wire::kUdpClientHelloMin);
    c.inner.drop_unauthenticated_replies = true;
    c.chunk_limit = std::clamp<std::size_t>(c.chunk_limit, 1, wire::kFragMaxChunk);
    // The attempt's own deadline (attempt_end) ends it; the inner machine's comes only
    // after the patience.
    c.inner.timeout += c.auth_patience;
    return c.inner;
  }

  UdpClientConfig cfg;
  crypto::Rng& rng;
  ClientHandshake inner;
  wire::UdpEnvelope env;
  wire::Reassembler flight{wire::udp_msg::kServerFlight};
  wire::Reassembler auth_ok{wire::udp_msg::kAuthOk};
  Stage stage = Stage::kIdle;
  bool auth_sent = false;     ///< AUTH went out at least once
  Instant auth_first_sent{};  ///< when it first did
  Instant started{};
  Duration attempt{};      ///< the configured timeout (inner's less the AUTH patience)
  bool timed_out = false;  ///< ended by attempt_end()

  // The attempt ends at its timeout, or — once AUTH went out — no earlier than the
  // patience after the first AUTH.
  Instant attempt_end() const {
    Instant end = started + attempt;
    if (auth_sent) end = std::max(end, auth_first_sent + cfg.auth_patience);
    return end;
  }
  bool expire(Instant now) {
    if (now < attempt_end()) return false;
    stage = Stage::kFailed;
    timed_out = true;
    out.clear();
    return true;
  }
  std::vector<Bytes> hello;  // the ClientHello datagrams, re-sent unchanged
  std::size_t hello_sends = 0;
  Bytes auth;  // the AUTH datagram, re-sent byte for byte
  // Return routability (docs/PROTOCOL.md §11), only with extensions on: every hello
  // (re)transmission follows one cookie datagram — the marker until a challenge came,
  // then the echo of the newest cookie.
  bool cookies = false;
  wire::CookieNonce nonce{};
  std::optional<wire::Cookie> cookie;
  bool answered = false;  ///< a challenge was answered since the last timed retransmit
  std::size_t challenges = 0;
  std::vector<Bytes> out;
  Instant next_retransmit{};
  std::size_t dropped = 0;
  std::uint32_t next_pn = 2;
  wire::QuicCid server_cid{};

  Duration retransmit_gap() {
    const auto jitter =
        rng.uniform(0, static_cast<std::uint64_t>(wire::kUdpRetransmitJitter.count()));
    return wire::kUdpRetransmitInterval + Millis(static_cast<Millis::rep>(jitter));
  }

  void start(Instant now) {
    if (stage != Stage::kIdle) return;
    env.quic = cfg.quic;
    env.obfs = cfg.obfs;
    rng.fill(env.cid);
    started = now;
    inner.start(now);
    std::vector<Outgoing> first = inner.take_output();
    if (inner.state() == State::kFailed || first.size() != 1) {
      stage = Stage::kFailed;
      return;
    }
    // 1. junk once (msg 3; a long header under the QUIC shape, like any pre-auth datagram)
    const std::size_t jc = std::min(cfg.junk.count, wire::kJunkMaxCount);
    const std::size_t lo = std::min(cfg.junk.min_len, cfg.junk.max_len);
    const std::size_t hi = std::max(cfg.junk.min_len, cfg.junk.max_len);
    for (std::size_t i = 0; i < jc; ++i) {
      const Bytes junk = wire::build_junk(rng.uniform(lo, hi), rng);
      out.push_back(env.wrap(junk, true, 0, rng));
    }
    // ... then the ClientHello, always fragmented as msg 1 (PN = fragment index).
    auto frags =
        wire::fragment_message(wire::udp_msg::kClientHello, first[0].bytes, cfg.chunk_limit);
    if (!frags.ok()) std::abort();  // a hello is ~1.5 KB, far below 24 chunks: a bug
    for (std::size_t i = 0; i < frags->size(); ++i) {
      hello.push_back(env.wrap((*frags)[i], true, static_cast<std::uint32_t>(i), rng));
    }
    cookies = cfg.inner.extensions != 0;
    if (cookies) rng.fill(nonce);
    send_hello();
    stage = Stage::kHello;
    next_retransmit = now + retransmit_gap();
  }

  // The cookie datagram (marker or echo; long header, PN 0 like junk), then the hello —
  // the same datagrams every time (the key agreement never restarts), rotated: a path
  // that loses datagrams at a fixed position (every 2nd or 3rd, say) still delivers each
  // fragment eventually; the order does not matter. The rotation moves on by one per
  // transmission, or per two when a transmission has an odd number of datagrams (the
  // cookie datagram and two fragments): an odd count alone moves each fragment's place
  // in the stream by one, and a rotation on top would move it back (every 2nd lost
  // would then always be the same fragment).
  void send_hello() {
    std::size_t n = hello.size();
    if (cookies) {
      const Bytes c = cookie ? wire::build_cookie_echo(*cookie) : wire::build_cookie_marker(nonce);
      out.push_back(env.wrap(c, true, 0, rng));
      ++n;
    }
    const std::size_t r = (n % 2 == 1 ? hello_sends / 2 : hello_sends) % hello.size();
    for (std::size_t i = 0; i < hello.size(); ++i) out.push_back(hello[(i + r) % hello.size()]);
    ++hello_sends;
  }

  // A challenge (msg 7) while the flight is awaited: one that repeats our nonce is
  // answered at once — echo, then the hello again — at most once per retransmit period
  // (a flood of challenges cannot make us flood the server); a later one only renews
  // the cookie the next retransmit echoes. Anything else is dropped.
  void on_challenge(ByteSpan msg, Instant now) {
    auto c = wire::parse_cookie_challenge(msg);
    if (!cookies || stage != Stage::kHello || !c.ok() || c->nonce != nonce) {
      ++dropped;
      return;
    }
    ++challenges;
    cookie = c->cookie;
    if (answered) return;
    answered = true;
    send_hello();
    next_retransmit = now + retransmit_gap();
  }

  // Feeds one whole message to the inner machine and turns its answer into datagrams.
  void feed_inner(ByteSpan message, Instant now) {
    inner.on_bytes(message, now);
    if (inner.state() == State::kFailed) {
      stage = Stage::kFailed;
      out.clear();
      return;
    }
    std::vector<Outgoing> answer = inner.take_output();
    if (stage == Stage::kHello && !answer.empty()) {
      // 3. the AUTH record: one datagram (AUTH is bounded so it never needs fragments)
      auth = env.wrap(answer[0].bytes, true, kAuthPacketNumber, rng);
      out.push_back(auth);
      stage = Stage::kAuth;
      if (!auth_sent) auth_first_sent = now;
      auth_sent = true;
      next_retransmit = now + retransmit_gap();
    }
    if (inner.state() == State::kDone) {
      // 4. done; anything the machine still sends (the capability frame) is data.
      if (stage == Stage::kAuth) {
        for (const Outgoing& o : answer) out.push_back(env.wrap(o.bytes, false, next_pn++, rng));
      }
      stage = Stage::kDone;
    }
  }

  void on_datagram(MutableByteSpan d, Instant now) {
    if (stage != Stage::kHello && stage != Stage::kAuth) {
      ++dropped;
      return;
    }
    if (expire(now)) return;
    inner.on_timer(now);
    if (inner.state() == State::kFailed) {
      stage = Stage::kFailed;
      return;
    }
    auto opened = wire::open_datagram(env, d);
    if (!opened.ok()) {
      ++dropped;
      return;
    }
    const ByteSpan msg = opened->inner;
    if (env.quic) server_cid = opened->peer_cid;
    switch (wire::classify_datagram(msg)) {
      case wire::DatagramKind::kServerFlightFragment:
        return on_fragment(flight, Stage::kHello, msg, now);
      case wire::DatagramKind::kAuthOkFragment: return on_fragment(auth_ok, Stage::kAuth, msg, now);
      case wire::DatagramKind::kCookieChallenge: return on_challenge(msg, now);
      case wire::DatagramKind::kDataRecord:  // AUTH OK in one datagram
        if (stage != Stage::kAuth) break;
        feed_inner(msg, now);
        if (stage == Stage::kAuth) ++dropped;  // it did not open (or was a heartbeat)
        return;
      default: break;
    }
    ++dropped;
  }

  void on_fragment(wire::Reassembler& re, Stage wanted, ByteSpan msg, Instant now) {
    if (stage != wanted) {
      ++dropped;  // a re-emitted flight after we moved on, or an early AUTH OK piece
      return;
    }
    auto p = re.add(msg, now);
    if (!p.ok() || *p == wire::Reassembler::Progress::kDuplicate) {
      ++dropped;
      return;
    }
    if (*p == wire::Reassembler::Progress::kComplete) {
      const Bytes whole(re.message().begin(), re.message().end());
      feed_inner(whole, now);
    }
  }

  void on_timer(Instant now) {
    if (stage != Stage::kHello && stage != Stage::kAuth) return;
    if (expire(now)) return;
    inner.on_timer(now);
    if (inner.state() == State::kFailed) {
      stage = Stage::kFailed;
      out.clear();
      return;
    }
    flight.expire(now);
    auth_ok.expire(now);
    if (now < next_retransmit) return;
    // 2. retransmit: the whole hello, or the AUTH datagram, unchanged.
    if (stage == Stage::kHello) {
      send_hello();
      answered = false;
    } else {
      out.push_back(auth);
    }
    next_retransmit = now + retransmit_gap();
  }

  std::optional<Instant> deadline() const {
    if (stage != Stage::kHello && stage != Stage::kAuth) return std::nullopt;
    Instant d = std::min(next_retransmit, attempt_end());
    for (auto other : {inner.deadline(), flight.deadline(), auth_ok.deadline()}) {
      if (other) d = std::min(d, *other);
    }
    return d;
  }
};

UdpClientHandshake::UdpClientHandshake(UdpClientConfig config, crypto::Rng& rng)
    : impl_(std::make_unique<Impl>(std::move(config), rng)) {}
UdpClientHandshake::~UdpClientHandshake() = default;

void UdpClientHandshake::start(Instant now) { impl_->start(now); }
void UdpClientHandshake::on_datagram(MutableByteSpan d, Instant now) { impl_->on_datagram(d, now); }
void UdpClientHandshake::on_timer(Instant now) { impl_->on_timer(now); }
std::vector<Bytes> UdpClientHandshake::take_datagrams() { return std::exchange(impl_->out, {}); }
std::optional<Instant> UdpClientHandshake::deadline() const { return impl_->deadline(); }

bool UdpClientHandshake::auth_sent() const { return impl_->auth_sent; }
Duration UdpClientHandshake::auth_unanswered_for(Instant now) const {
  if (!impl_->auth_sent || impl_->stage == Stage::kDone) return Duration::zero();
  return now - impl_->auth_first_sent;
}

State UdpClientHandshake::state() const {
  switch (impl_->stage) {
    case Stage::kDone: return State::kDone;
    case Stage::kFailed: return State::kFailed;
    default: return State::kRunning;
  }
}

Failure UdpClientHandshake::failure() const {
  if (impl_->stage != Stage::kFailed) return Failure::kNone;
  if (impl_->timed_out) return Failure::kTimeout;
  const Failure f = impl_->inner.failure();
  return f == Failure::kNone ? Failure::kUnexpectedMessage : f;
}

std::size_t UdpClientHandshake::dropped() const { return impl_->dropped; }
std::size_t UdpClientHandshake::challenges() const { return impl_->challenges; }

UdpClientSession UdpClientHandshake::take_session() {
  if (impl_->stage != Stage::kDone) std::abort();
  UdpClientSession s{impl_->inner.take_session(), impl_->env, impl_->server_cid, impl_->next_pn};
  s.session.leftover.clear();
  return s;
}

}  // namespace qeli::handshake
