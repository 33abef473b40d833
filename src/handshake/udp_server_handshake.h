// UdpServerHandshake: the server's fake-tls handshake with ONE UDP source address
// (0.7.16 §3.9; docs/PROTOCOL.md "UDP handshake"). A sans-I/O adapter around
// ServerHandshake: datagrams from that source and `now` in, datagrams to it out. The
// caller keeps one per half-open source (bounded, oldest evicted: the server's job).
//
//   1. ClientHello fragments (msg 1) are reassembled. A hello under 1200 bytes is never
//      answered (kHelloTooSmall). Junk (msg 3) and anything unknown is dropped before any
//      crypto; a stranger's single short datagram gets nothing back. A distinct complete
//      hello asks the caller's admit_hello gate (rate limits) before the key agreement;
//      a refused one is dropped silently (refused()) and its retransmit asks again.
//      Return routability (docs/PROTOCOL.md §11): a cookie marker (a junk datagram of
//      wire/udp_cookie.h) is remembered until the next verdict; the gate may then answer
//      a hello with a challenge (msg 7, ~30 bytes), which is all that is sent — the
//      marker is forgotten, no hello is kept. A cookie echo (msg 8) goes to the caller
//      (on_cookie), which keeps whatever it needs.
//   2. The reply ServerHello ‖ CCS ‖ Cert ‖ Finished ‖ NST ‖ proof record is ONE message,
//      fragmented as msg 2 and cached. It is sent — first, and again on every retransmit
//      of the same hello — only while the bytes sent to the source stay within 3× the
//      bytes received from it (anti-amplification, cumulative). A different hello from
//      the same source restarts the handshake (the client restarted behind the same port).
//   3. The AUTH record (one datagram) goes to ServerHandshake, which emits an AuthRequest
//      event; the caller verifies it (Argon2id, possibly on another thread) and calls
//      accept()/accept_join()/reject() later. Retransmitted AUTHs are ignored meanwhile;
//      a data record that does not authenticate is dropped (forged or stray), not fatal.
//      The AUTH datagram is kept as received (before the obfs seal is opened): the client
//      re-sends that very datagram (0.7.16: byte-identical, seal nonce included).
//   4. accept(): AUTH OK is sent as one datagram, or as msg 6 fragments when the record is
//      larger than a chunk; it is re-sent on a byte-identical AUTH datagram at most 5
//      times (also after the session is taken: UdpAuthOkResender).
//
// The QUIC shape is detected from the first datagram (wire::looks_like_quic), whatever
// the profile says; replies then use long headers with our own random CID (PN = fragment
// index for the flight, 1.. for AUTH OK) and the data path continues at
// next_packet_number. The obfs seal is required when the profile has a key.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "base/bytes.h"
#include "base/clock.h"
#include "crypto/random.h"
#include "handshake/server_handshake.h"
#include "wire/udp_cookie.h"
#include "wire/udp_envelope.h"

namespace qeli::handshake {

/// The caller's answer to a complete new ClientHello (UdpServerConfig::admit_hello).
struct HelloVerdict {
  enum class Kind : std::uint8_t {
    kAdmit,      ///< run the key agreement and answer with the flight
    kRefuse,     ///< drop it silently; the client's retransmit asks again
    kChallenge,  ///< drop it, and send `cookie` in a challenge (msg 7) if the client can
                 ///< answer one (it sent a marker); nothing is kept either way
  };
  Kind kind = Kind::kAdmit;
  wire::Cookie cookie{};

  static HelloVerdict admit() { return {}; }
  static HelloVerdict refuse() { return {Kind::kRefuse, {}}; }
  static HelloVerdict challenge(const wire::Cookie& c) { return {Kind::kChallenge, c}; }
};

struct UdpServerConfig {
  /// The inner handshake (mode kFakeTls; its TCP-only fragmentation and jitter are off).
  ServerConfig inner;
  /// The profile's obfs seal, borrowed (one per worker thread); null = no seal.
  wire::UdpObfs* obfs = nullptr;
  /// Largest fragment chunk (1..1163).
  std::size_t chunk_limit = wire::kFragMaxChunk;
  /// Asked once per distinct complete ClientHello (≥ 1200 bytes), just before its key
  /// agreement (X25519 + ML-KEM-768, the expensive part); a retransmit of the hello
  /// already answered never asks. `challengeable`: the source sent a cookie marker
  /// (wire/udp_cookie.h), so a challenge would be understood. A refused or challenged
  /// hello is counted in refused(); a challenge goes out only within the 3× budget and
  /// is counted in challenged(). Empty = always admitted. Called on the thread that feeds
  /// the datagrams.
  std::function<HelloVerdict(Instant now, bool challengeable)> admit_hello;
  /// A cookie echo (msg 8) from the source: its cookie, or nullopt when malformed (also
  /// counted in dropped()). The caller checks it against the source address. Empty =
  /// echoes are dropped.
  std::function<void(std::optional<wire::Cookie> cookie, Instant now)> on_cookie;
};

/// Answers AUTH retransmits after the handshake: the AUTH datagram as it was received
/// (UDP payload, still sealed) and the AUTH OK datagrams, re-sent at most
/// wire::kMaxAuthOkReemits times. The check runs on every datagram of a young session,
/// so it costs one size compare, plus a memcmp only for a datagram of exactly the AUTH
/// datagram's size; nothing is copied or opened.
class UdpAuthOkResender {
 public:
  UdpAuthOkResender() = default;
  UdpAuthOkResender(Bytes auth_datagram, std::vector<Bytes> reply)
      : auth_(std::move(auth_datagram)), reply_(std::move(reply)) {}
  /// `datagram` is a received UDP payload, untouched. If it is the AUTH datagram byte for
  /// byte and re-sends are left, returns the AUTH OK datagrams; otherwise nothing (the
  /// caller treats the datagram as data).
  std::vector<Bytes> on_datagram(ByteSpan datagram);
  int reemits_left() const { return left_; }
  /// How many datagrams were compared byte by byte (had the AUTH datagram's size).
  std::size_t compared() const { return compared_; }

 private:
  Bytes auth_;
  std::vector<Bytes> reply_;
  int left_ = wire::kMaxAuthOkReemits;
  std::size_t compared_ = 0;
};

struct UdpServerSession {
  ServerSession session;
  wire::UdpEnvelope envelope;  ///< QUIC shape as detected, our CID, the obfs key
  std::uint32_t next_packet_number = 2;
  UdpAuthOkResender resender;
};

class UdpServerHandshake {
 public:
  /// `config.inner.identity`, `config.obfs` and `rng` must outlive the object.
  UdpServerHandshake(const UdpServerConfig& config, crypto::Rng& rng);
  ~UdpServerHandshake();
  UdpServerHandshake(const UdpServerHandshake&) = delete;
  UdpServerHandshake& operator=(const UdpServerHandshake&) = delete;

  /// One datagram from the source (UDP payload), decoded in place.
  void on_datagram(MutableByteSpan datagram, Instant now);
  void on_timer(Instant now);

  std::vector<Bytes> take_datagrams();
  /// The pending AuthRequest/JoinRequest, once.
  std::optional<ServerEvent> take_event();
  void accept(AuthOk ok);
  void accept_join();
  void reject();

  std::optional<Instant> deadline() const;
  State state() const;
  Failure failure() const;
  std::size_t dropped() const;
  /// Complete hellos the admit_hello gate refused or challenged.
  std::size_t refused() const;
  /// Challenges (msg 7) sent.
  std::size_t challenged() const;
  /// True while the adapter holds nothing worth keeping for its source: no hello, no
  /// partial hello, no cookie marker (the caller may then forget the source).
  bool idle() const;
  /// True once a ClientHello passed the gate and got its key agreement; false while the
  /// source has sent nothing worth keeping state for.
  bool has_hello() const;
  /// Anti-amplification accounting: bytes of the datagrams counted from the source, and
  /// bytes sent to it before authentication (always ≤ 3 × received).
  std::size_t bytes_received() const;
  std::size_t pre_auth_bytes_sent() const;
  /// Valid once, in state kDone.
  UdpServerSession take_session();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace qeli::handshake
