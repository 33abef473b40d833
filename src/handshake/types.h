// Vocabulary shared by ClientHandshake and ServerHandshake: modes, the closed set of
// failure reasons, outgoing chunks and capability bits. docs/PROTOCOL.md "State machines".
#pragma once

#include <array>
#include <chrono>
#include <cstdint>

#include "base/bytes.h"
#include "base/clock.h"
#include "wire/limits.h"
#include "wire/modes.h"

namespace qeli::handshake {

/// Which flight runs: the mode table's flight (wire/modes.h). kFakeTls is used by every
/// mode except `plain` (obfs, reality and reality-tls wrap the same byte stream in outer
/// layers that are not this layer's job).
using Mode = wire::Flight;

/// Every way a handshake can end other than success. Callers count these; the wire
/// shows nothing (the server closes silently).
enum class Failure : std::uint8_t {
  kNone = 0,
  kTimeout,                ///< the deadline passed before completion
  kPeerClosed,             ///< the transport closed mid-handshake
  kRecordFraming,          ///< over-long record or bad record version (RecordReader)
  kBadClientHello,         ///< unparsable hello or no X25519MLKEM768 share
  kBadServerHello,         ///< unparsable ServerHello or no 0x11EC share
  kBadFlightRecord,        ///< CCS/Certificate/Finished/NST of the wrong shape or order
  kLowOrderPoint,          ///< an X25519 result was all zero
  kRecordAuthFailed,       ///< a handshake record did not open (tampering, wrong keys)
  kBadProofMessage,        ///< server proof message of the wrong length
  kServerProofInvalid,     ///< the server proof did not verify
  kServerKeyMismatch,      ///< SERVER KEY MISMATCH: the server is not the pinned key
  kPinRequired,            ///< bound KDF or hidden identity with no pinned server key
  kClientKeyProofInvalid,  ///< server side: require_client_key_proof and a bad proof
  kBadAuthMessage,         ///< malformed AUTH / JOIN plaintext
  kBadAuthOk,              ///< AUTH OK missing, not JSON, or failed validation
  kBadJoinReply,           ///< anything but JOINOK after a JOIN
  kRejected,               ///< server: the caller rejected; client: closed after AUTH
  kUnexpectedMessage,      ///< a record arrived when none was expected
  kSealFailed,             ///< our own sealing failed (a bug)
  kHelloTooSmall,          ///< UDP server: a reassembled ClientHello under 1200 bytes
  kTlsBindingMismatch,     ///< reality-tls: the server sees another TLS session (MITM)
};
const char* to_string(Failure f);

/// Outcome of a state machine so far.
enum class State : std::uint8_t { kRunning, kDone, kFailed };

/// One piece of output: write `bytes` after waiting `delay` (relative to the previous
/// chunk). Delays exist only for the optional server jitter and ServerHello
/// fragmentation; a caller that ignores them stays correct, only less disguised.
struct Outgoing {
  Bytes bytes;
  Duration delay{};
};

/// Our protocol extensions, negotiated in AUTH OK (`x_caps`, server→client) and a
/// control frame of type wire::kCtrlCapabilities (client→server). A 0.7.16 peer ignores
/// both. The bits name what both ends may use; no bit changes the handshake itself.
namespace caps {
inline constexpr std::uint32_t kCapabilityExchange = 1U << 0;  ///< this exchange itself
inline constexpr std::uint32_t kGsoSuperPackets = 1U << 1;     ///< super-packets whole (§10)
inline constexpr std::uint32_t kRekey = 1U << 2;               ///< reserved: rekeying
/// Each end sends a session-close frame (wire/session_close.h) before it ends a session
/// on purpose (docs/PROTOCOL.md §12).
inline constexpr std::uint32_t kCloseNotify = 1U << 3;
/// reality-tls only: both ends prove they see the same TLS session (its RFC 8446 §7.5
/// exporter), then data records go without the inner AEAD (docs/PROTOCOL.md §16). Offered
/// by the caller when the carrier is TLS 1.3 (not part of our_extensions()).
inline constexpr std::uint32_t kTlsBinding = 1U << 4;
/// Data records with AES-256-GCM instead of ChaCha20-Poly1305, under a key derived from
/// each direction's key (docs/PROTOCOL.md §18). Offered only where this CPU runs AES-GCM
/// in hardware (crypto::cpu_has_aes_gcm) and QELI_DISABLE_AESGCM is not 1.
inline constexpr std::uint32_t kAesGcm = 1U << 5;
/// TCP obfs only: record bodies skip the obfs keystream, headers keep it; the client
/// switches first, in-band (transport/obfs_stream.h, docs/PROTOCOL.md §17).
inline constexpr std::uint32_t kObfsHeaderXor = 1U << 6;
/// UDP only: the client's record nonces carry roaming connection ids, so the server
/// follows it to a new address (wire/roam_nonce.h, docs/PROTOCOL.md §20). Offered by a
/// server profile with roaming.enabled.
inline constexpr std::uint32_t kRoam = 1U << 7;
/// IPv6 packets inside the tunnel (docs/PROTOCOL.md §21): AUTH OK carries the client's
/// IPv6 address (`x_ip6`, `x_server_ip6`). Offered by a server profile with
/// pool.ipv6.cidr; answered by a client whose host can carry IPv6 (the Linux daemon).
inline constexpr std::uint32_t kIpv6Inside = 1U << 8;
/// TCP only: after its connection breaks, the client resumes the session on a new one
/// within the server's grace period by a JOIN with the key proof (docs/PROTOCOL.md §22):
/// no Argon2id, fresh keys, the same tunnel address. AUTH OK carries `x_resume_secs`.
/// Offered by a TCP profile with roaming.enabled.
inline constexpr std::uint32_t kResume = 1U << 9;
/// The name of each extension this build can negotiate (`qeli version`), in bit order.
struct Named {
  std::uint32_t bit;
  const char* name;
};
inline constexpr std::array<Named, 8> kNamed{{{kGsoSuperPackets, "gso-super-packets"},
                                              {kCloseNotify, "session-close"},
                                              {kTlsBinding, "tls-binding"},
                                              {kAesGcm, "aes-256-gcm"},
                                              {kObfsHeaderXor, "obfs-header-xor"},
                                              {kRoam, "udp-roaming"},
                                              {kIpv6Inside, "ipv6-inside"},
                                              {kResume, "tcp-resume"}}};

}  // namespace caps

enum class Carrier : std::uint8_t { kStream, kDatagram };

/// The extension bits this build offers (server, AUTH OK `x_caps`) and answers with
/// (client): none when the environment says QELI_DISABLE_EXTENSIONS=1 (exact 0.7.16
/// behaviour, for tests and measurements); GSO super-packets on stream carriers only;
/// AES-GCM records only on a CPU with AES-GCM instructions and without
/// QELI_DISABLE_AESGCM=1 (for measurements).
std::uint32_t our_extensions(Carrier carrier);

using X25519Public = std::array<std::uint8_t, 32>;
using DeviceId = std::array<std::uint8_t, wire::kDeviceIdSize>;
using JoinToken = std::array<std::uint8_t, wire::kJoinTokenSize>;

inline constexpr auto kDefaultHandshakeTimeout = std::chrono::seconds{15};

}  // namespace qeli::handshake
