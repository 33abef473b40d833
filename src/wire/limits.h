// Every constant of the qeli 0.7.16 wire format in one place (docs/PROTOCOL.md).
//
// Sizes are in bytes unless the name says otherwise. Where a value is derived from
// others the derivation is written out and checked by a static_assert, so changing one
// number cannot silently desynchronise the rest.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace qeli::wire {

// ---- Data records (PacketCodec, docs/PROTOCOL.md "Data records") ----------------------

/// `17 03 03` + u16 BE payload length (Tls framing).
inline constexpr std::size_t kTlsHeaderSize = 5;
/// u16 BE payload length only (Raw framing, `plain` mode).
inline constexpr std::size_t kRawHeaderSize = 2;
/// The explicit 12-byte AEAD nonce that follows the header.
inline constexpr std::size_t kNonceSize = 12;
/// The u64 BE record counter at the start of the plaintext.
inline constexpr std::size_t kCounterSize = 8;
/// The u16 BE padding length at the end of the plaintext.
inline constexpr std::size_t kPadLenSize = 2;
/// The Poly1305 tag.
inline constexpr std::size_t kTagSize = 16;

/// Payload bytes that are not data or padding: nonce ‖ counter ‖ padlen ‖ tag.
inline constexpr std::size_t kRecordOverhead = kNonceSize + kCounterSize + kPadLenSize + kTagSize;
static_assert(kRecordOverhead == 38);

/// MAX_RECORD_SIZE of 0.7.16 = 16384 + 12 + 16 + 8 + 256: the largest payload length
/// (the value in the record header) a receiver accepts.
inline constexpr std::size_t kMaxRecordPayload = 16384 + 12 + 16 + 8 + 256;
static_assert(kMaxRecordPayload == 16676);
/// The smallest valid payload: an empty plaintext (heartbeat) without padding.
inline constexpr std::size_t kMinRecordPayload = kRecordOverhead;

/// Largest data + padding in one record (= kMaxRecordPayload − overhead). 0.7.16 calls
/// this MAX_TUNNEL_MTU and also uses it as the configurable MTU ceiling.
inline constexpr std::size_t kMaxTunnelMtu = kMaxRecordPayload - kRecordOverhead;
static_assert(kMaxTunnelMtu == 16638);
/// The lowest tunnel MTU a peer or a config may set (RFC 791 minimum reassembly size).
inline constexpr std::size_t kMinTunnelMtu = 576;
/// Largest padding a record can announce (u16), before the record-size limit applies.
inline constexpr std::size_t kMaxPaddingField = 0xFFFF;

/// Encryption refuses once the send counter reaches 2^64 − 1001 (0.7.16 margin).
inline constexpr std::uint64_t kSealCounterLimit = ~std::uint64_t{0} - 1000;

/// TLS record content types used by qeli's fake-TLS flight and data records.
inline constexpr std::uint8_t kContentChangeCipherSpec = 0x14;
inline constexpr std::uint8_t kContentHandshake = 0x16;
inline constexpr std::uint8_t kContentApplicationData = 0x17;
/// Record-layer legacy version written and required by qeli (TLS 1.2 = 03 03).
inline constexpr std::uint16_t kRecordVersion = 0x0303;

// ---- Control frames (C1 9B type len body) ----------------------------------------------

inline constexpr std::uint8_t kCtrlMagic0 = 0xC1;
inline constexpr std::uint8_t kCtrlMagic1 = 0x9B;
/// magic(2) ‖ type(1) ‖ len(1).
inline constexpr std::size_t kCtrlHeaderSize = 4;
inline constexpr std::size_t kCtrlMaxBody = 255;
/// Type 1: client→server MTU report, body u16 BE (receiver clamps to 576..16638).
inline constexpr std::uint8_t kCtrlMtuReport = 1;
/// Type 2: client info, body ver_len(1) ‖ version ‖ platform.
inline constexpr std::uint8_t kCtrlClientInfo = 2;
/// Type 3 is used by later upstream versions (UDP payload budget); we never send it.
inline constexpr std::uint8_t kCtrlUdpPayloadBudget = 3;
/// Type 0x40: OUR extension (not in 0.7.16): client→server capability bitmask, u32 BE.
/// Sent only to a server that advertised `x_caps` in AUTH OK; older peers skip it.
inline constexpr std::uint8_t kCtrlCapabilities = 0x40;
/// Type 0x42: OUR extension (capability bit handshake::caps::kTlsBinding): client→server
/// proof that it sees the same TLS session, body = 32 bytes (handshake/tls_binding.h).
/// Sent right after the capability frame, only to a server that offered the bit.
inline constexpr std::uint8_t kCtrlTlsBinding = 0x42;
inline constexpr std::size_t kTlsBindingProofSize = 32;
/// Type 0x80: OUR extension (capability bit handshake::caps::kCloseNotify): server→client
/// "this session ends now", body = reason(1) (wire/session_close.h). Sent only to a
/// client that answered the capability offer with that bit.
inline constexpr std::uint8_t kCtrlSessionClose = 0x80;
inline constexpr std::size_t kMaxClientVersionLen = 32;
inline constexpr std::size_t kMaxClientPlatformLen = 16;

// ---- Fake-TLS handshake flight (docs/PROTOCOL.md "Fake-TLS flight") ---------------------

/// Largest handshake record payload a parser accepts (0.7.16 MAX_HANDSHAKE_SIZE).
inline constexpr std::size_t kMaxHandshakeRecordPayload = 16384;
/// Record header + handshake header + version + random + sid_len + sid(32) + suites
/// (len + 4 × 2) + compression (2) + extensions length: the bytes of a ClientHello
/// that are not extensions, used for the padding arithmetic.
inline constexpr std::size_t kClientHelloFixedBytes = 5 + 4 + 2 + 32 + 1 + 32 + 2 + 8 + 2 + 2;
static_assert(kClientHelloFixedBytes == 90);
inline constexpr std::size_t kRandomSize = 32;
inline constexpr std::size_t kSessionIdSize = 32;

inline constexpr std::uint16_t kGroupX25519 = 0x001D;
inline constexpr std::uint16_t kGroupX25519MlKem768 = 0x11EC;
inline constexpr std::uint16_t kGroupSecp256r1 = 0x0017;
inline constexpr std::size_t kX25519PublicSize = 32;
inline constexpr std::size_t kMlKemEkSize = 1184;
inline constexpr std::size_t kMlKemCtSize = 1088;
/// Client 0x11EC share = ML-KEM-768 ek ‖ X25519 public.
inline constexpr std::size_t kClientHybridShareSize = kMlKemEkSize + kX25519PublicSize;
static_assert(kClientHybridShareSize == 1216);
/// Server 0x11EC share = ML-KEM-768 ciphertext ‖ X25519 public.
inline constexpr std::size_t kServerHybridShareSize = kMlKemCtSize + kX25519PublicSize;
static_assert(kServerHybridShareSize == 1120);

/// `14 03 03 00 01 01`.
inline constexpr std::size_t kChangeCipherSpecRecordSize = 6;
/// Disguised Certificate: pseudo-DER blob of 512..1799 bytes.
inline constexpr std::size_t kCertBlobMin = 512;
inline constexpr std::size_t kCertBlobMax = 1799;
/// Disguised Finished: 32 random bytes.
inline constexpr std::size_t kFinishedSize = 32;
/// Disguised NewSessionTicket: lifetime 7200 s, ticket of 32..192 bytes.
inline constexpr std::uint32_t kTicketLifetimeSeconds = 7200;
inline constexpr std::size_t kTicketMin = 32;
inline constexpr std::size_t kTicketMax = 192;
/// UDP modes pad the ClientHello record to at least this (anti-amplification).
inline constexpr std::size_t kUdpClientHelloMin = 1200;
/// Optional server think-time jitter before the flight (obf.anti_fingerprinting).
inline constexpr auto kMaxServerJitter = std::chrono::milliseconds{11};
/// Gap between ServerHello fragments (obf.fragmentation).
inline constexpr auto kFragmentGap = std::chrono::milliseconds{2};

// ---- Handshake messages (docs/PROTOCOL.md "Authentication") ----------------------------

inline constexpr std::size_t kProofSize = 32;
inline constexpr std::size_t kDeviceIdSize = 16;
inline constexpr std::size_t kJoinTokenSize = 16;
/// `QELIJOIN` ‖ token(16) ‖ stream_index(1).
inline constexpr std::size_t kJoinMessageSize = 8 + kJoinTokenSize + 1;
/// Client credentials (`user:pass`) are bounded so AUTH fits one record (and, on UDP,
/// one datagram); we accept at most this many bytes.
inline constexpr std::size_t kMaxCredentialsSize = 1024;
/// Largest AUTH OK JSON we accept from a server.
inline constexpr std::size_t kMaxAuthOkSize = 8192;
inline constexpr std::size_t kMaxStreams = 16;

// ---- UDP transport (docs/PROTOCOL.md "UDP transport"; 0.7.16 udp_frag.rs, quic.rs) -------

/// Handshake fragment = `F0 9B 71` ‖ msg_id ‖ idx ‖ count ‖ chunk.
inline constexpr std::uint8_t kFragMagic0 = 0xF0;
inline constexpr std::uint8_t kFragMagic1 = 0x9B;
inline constexpr std::uint8_t kFragMagic2 = 0x71;
inline constexpr std::size_t kFragHeaderSize = 6;
/// The QUIC-shaped long header with a 2-byte Length varint: flags(1) version(4)
/// dcid_len(1) dcid(4) scid_len(1) token_len(1) length(2) pn(4).
inline constexpr std::size_t kQuicCidSize = 4;
inline constexpr std::size_t kQuicPnSize = 4;
inline constexpr std::size_t kQuicLongHeaderSize =
    1 + 4 + 1 + kQuicCidSize + 1 + 1 + 2 + kQuicPnSize;
static_assert(kQuicLongHeaderSize == 18);
/// Short header = 0x43 ‖ dcid(4) ‖ pn(4).
inline constexpr std::size_t kQuicShortHeaderSize = 1 + kQuicCidSize + kQuicPnSize;
static_assert(kQuicShortHeaderSize == 9);
/// Per-datagram obfs seal = flag(1) ‖ nonce(12).
inline constexpr std::size_t kObfsSealSize = 1 + 12;
inline constexpr std::size_t kUdpHeaderSize = 8;
inline constexpr std::size_t kIpv4HeaderSize = 20;
inline constexpr std::size_t kIpv6HeaderSize = 40;
/// The smallest IPv6 link MTU (RFC 8200 §5) every path must carry.
inline constexpr std::size_t kIpv6MinMtu = 1280;
/// 0.7.16 keeps this much of the 1280-byte packet in reserve.
inline constexpr std::size_t kFragReserve = 32;
/// Largest chunk we EMIT: a fragment in the worst case (QUIC long header + obfs seal over
/// UDP over IPv6) still fits the IPv6 minimum MTU with the reserve to spare.
inline constexpr std::size_t kFragMaxChunk = kIpv6MinMtu - kIpv6HeaderSize - kUdpHeaderSize -
                                             kObfsSealSize - kQuicLongHeaderSize - kFragReserve -
                                             kFragHeaderSize;
static_assert(kFragMaxChunk == 1163);
/// Largest chunk we ACCEPT (a peer with another arithmetic may send a little more).
inline constexpr std::size_t kFragMaxChunkAccept = 1200;
/// Largest fragment count of one message.
inline constexpr std::size_t kFragMaxCount = 24;
/// Largest message the fragmenter can carry (24 × 1163 = 27912).
inline constexpr std::size_t kFragMaxMessage = kFragMaxCount * kFragMaxChunk;
static_assert(kFragMaxMessage == 27912);
/// Largest message a receiver reassembles (24 × 1200 = 28800).
inline constexpr std::size_t kFragMaxAcceptMessage = kFragMaxCount * kFragMaxChunkAccept;
/// A partial message is discarded this long after its first fragment.
inline constexpr auto kFragReassemblyTimeout = std::chrono::seconds{10};

/// Handshake message ids (the msg_id byte of a fragment).
namespace udp_msg {
inline constexpr std::uint8_t kClientHello = 1;
inline constexpr std::uint8_t kServerFlight = 2;  ///< ServerHello ‖ CCS ‖ … ‖ proof record
inline constexpr std::uint8_t kJunk = 3;          ///< AWG decoy, dropped before any crypto
inline constexpr std::uint8_t kMtuProbe = 4;
inline constexpr std::uint8_t kMtuProbeAck = 5;
inline constexpr std::uint8_t kAuthOk = 6;  ///< an AUTH OK record larger than one chunk
/// OUR extension (docs/PROTOCOL.md §11 "Return routability"; wire/udp_cookie.h): server →
/// client, "prove you receive at this address" — only to a client that sent a marker.
inline constexpr std::uint8_t kCookieChallenge = 7;
/// OUR extension: client → server, the cookie of a challenge echoed back.
inline constexpr std::uint8_t kCookieEcho = 8;
}  // namespace udp_msg

/// Return-routability cookies (wire/udp_cookie.h). The cookie is a MAC the server can
/// recompute from the source address; the nonce is the client's, per handshake, and
/// binds a challenge to the client's own marker.
inline constexpr std::size_t kCookieSize = 16;
inline constexpr std::size_t kCookieNonceSize = 8;
/// The marker is a junk datagram (msg 3) whose chunk is nonce ‖ tag(nonce).
inline constexpr std::size_t kCookieMarkerTagSize = 8;
inline constexpr std::size_t kCookieMarkerChunk = kCookieNonceSize + kCookieMarkerTagSize;
/// Challenge chunk = the marker's nonce ‖ cookie; echo chunk = cookie.
inline constexpr std::size_t kCookieChallengeChunk = kCookieNonceSize + kCookieSize;
inline constexpr std::size_t kCookieEchoChunk = kCookieSize;
static_assert(kFragHeaderSize + kCookieChallengeChunk == 30);

/// MTU probe / ack payload = id(u16 LE) ‖ outer_size(u16 LE) [‖ random pad on probes].
inline constexpr std::size_t kMtuProbeFieldsSize = 4;

/// AWG junk (`jc`, `jmin`, `jmax`): at most 128 datagrams; UDP clamps each length to
/// 1..kFragMaxChunk; configs must keep jmin ≤ jmax ≤ 1400.
inline constexpr std::size_t kJunkMaxCount = 128;
inline constexpr std::size_t kJunkMaxLen = 1400;

/// Anti-amplification (0.7.16 udp_handler.rs): the reassembled first ClientHello must be
/// at least kUdpClientHelloMin bytes, and the server never sends more than this factor
/// times what it received from that source before authentication.
inline constexpr std::size_t kAmplificationFactor = 3;
/// AUTH OK is re-emitted at most this many times (on a byte-identical AUTH retransmit).
inline constexpr int kMaxAuthOkReemits = 5;
/// Client retransmission of the whole ClientHello: every 1000 ms + 0..250 ms jitter.
inline constexpr auto kUdpRetransmitInterval = std::chrono::milliseconds{1000};
inline constexpr auto kUdpRetransmitJitter = std::chrono::milliseconds{250};

}  // namespace qeli::wire
