// UdpClientHandshake: the client's fake-tls handshake over UDP datagrams (0.7.16 §3.9;
// docs/PROTOCOL.md "UDP handshake"). A sans-I/O adapter around ClientHandshake: datagrams
// and `now` in, datagrams and a deadline out.
//
//   1. start(): [jc junk datagrams (msg 3), once] then the ClientHello, padded to ≥ 1200
//      bytes with the TLS padding extension and always fragmented as msg 1.
//   2. Until the server flight arrives, the whole ClientHello (the same bytes) is sent
//      again every 1000 ms + 0..250 ms of jitter.
//   3. The flight (msg 2 fragments: ServerHello ‖ CCS ‖ Cert ‖ Finished ‖ NST ‖ proof) is
//      reassembled and fed to ClientHandshake, which answers with the AUTH record: one
//      datagram, re-sent byte for byte on the same schedule until AUTH OK arrives.
//   4. AUTH OK arrives as one data record, or as msg 6 fragments when it is larger than a
//      chunk; then the session is ready (state kDone).
//
// Return routability (our extension, docs/PROTOCOL.md §11; on unless inner.extensions is
// 0): each hello (re)transmission follows a cookie marker (a junk datagram a 0.7.16 server
// drops for free, wire/udp_cookie.h). A server short of login slots for unverified
// sources answers with a challenge (msg 7) naming the marker's nonce; the client echoes
// its cookie (msg 8) and sends the same hello again at once, and echoes the newest cookie
// before every later retransmit of it. A challenge never fails the handshake.
//
// With the QUIC shape, handshake datagrams carry long headers: ClientHello fragment i has
// packet number i, AUTH has 1; data then starts at next_packet_number() (≥ 2, strictly
// increasing). Our connection id is random per handshake; once the server's is known,
// the data path may address it (see UdpClientSession::server_cid).
//
// A datagram that is not part of the handshake (junk, probes, an unknown kind, a broken
// envelope, a flight that arrives again, a data record that does not authenticate while
// AUTH OK is awaited) is dropped and counted in dropped(); it never fails the handshake —
// anyone can send a datagram. A complete flight that the inner machine rejects does fail
// it: that is how a server key mismatch shows.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "base/bytes.h"
#include "base/clock.h"
#include "crypto/random.h"
#include "handshake/client_handshake.h"
#include "wire/udp_envelope.h"

namespace qeli::handshake {

struct UdpJunk {
  std::size_t count = 0;  ///< jc, 0..wire::kJunkMaxCount
  std::size_t min_len = 40;
  std::size_t max_len = 300;  ///< each length uniform in [min, max], clamped to 1..1163
};

struct UdpClientConfig {
  /// The inner handshake. Its mode must be kFakeTls; pad_to_min is raised to 1200.
  ClientConfig inner;
  bool quic = false;
  /// The profile's obfs seal (wire::UdpObfs), borrowed; null = no seal.
  wire::UdpObfs* obfs = nullptr;
  UdpJunk junk;
  /// Largest fragment chunk (1..1163); smaller for a path known to be narrower.
  std::size_t chunk_limit = wire::kFragMaxChunk;
  /// How long a sent AUTH is waited for at least, even past inner.timeout (zero: not
  /// past it). A server admits hellos late in a login storm; without this an AUTH sent
  /// just before the timeout would end unanswered although the server never refused it
  /// — and a client that cannot tell would either count a refusal that was none or
  /// fail to count a real one (0.7.16 refuses in silence).
  Duration auth_patience{0};
};

struct UdpClientSession {
  ClientSession session;
  wire::UdpEnvelope envelope;  ///< our envelope (QUIC shape, CID, obfs key) for data
  wire::QuicCid server_cid{};  ///< the CID the server wrote (QUIC shape only)
  std::uint32_t next_packet_number = 2;
};

class UdpClientHandshake {
 public:
  /// `rng` and `config.obfs` must outlive the object.
  UdpClientHandshake(UdpClientConfig config, crypto::Rng& rng);
  ~UdpClientHandshake();
  UdpClientHandshake(const UdpClientHandshake&) = delete;
  UdpClientHandshake& operator=(const UdpClientHandshake&) = delete;

  void start(Instant now);
  /// One received datagram (the UDP payload); decoded in place.
  void on_datagram(MutableByteSpan datagram, Instant now);
  /// Retransmits and timeouts; call at deadline().
  void on_timer(Instant now);

  /// Datagrams to send, in order (each ≤ chunk_limit + 6 + envelope overhead bytes, or
  /// the AUTH record + overhead). The caller owns them.
  std::vector<Bytes> take_datagrams();
  std::optional<Instant> deadline() const;
  State state() const;
  Failure failure() const;
  /// True once the AUTH datagram was sent (the server's identity was verified): a
  /// timeout after that means the server never answered AUTH — on UDP that is how a
  /// rejection of the credentials shows (0.7.16 rejects silently).
  bool auth_sent() const;
  /// How long the AUTH has gone unanswered at `now` (zero before it was sent or once
  /// answered). A short silence before a timeout is no refusal: a server busy with a login
  /// storm admits hellos late, and its answer may come just after the client gave up.
  Duration auth_unanswered_for(Instant now) const;
  /// Datagrams ignored so far (not part of the handshake, or duplicates).
  std::size_t dropped() const;
  /// Cookie challenges taken (they named our marker's nonce).
  std::size_t challenges() const;
  /// Valid once, in state kDone. Data-plane datagrams that arrived with AUTH OK are not
  /// kept: on UDP each is independent and the data path has its own loss tolerance.
  UdpClientSession take_session();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace qeli::handshake
