// Every TLS 1.3 code point and limit src/tls uses, in one place (RFC 8446 unless noted).
//
// Sizes are in bytes unless the name says otherwise. Names follow the RFCs' field terms.
#pragma once

#include <cstddef>
#include <cstdint>

namespace qeli::tls {

// ---- Record layer (RFC 8446 §5) -------------------------------------------------------

/// ContentType (§5.1).
enum class ContentType : std::uint8_t {
  kInvalid = 0,
  kChangeCipherSpec = 20,
  kAlert = 21,
  kHandshake = 22,
  kApplicationData = 23,
};

/// type(1) ‖ legacy_record_version(2) ‖ length(2).
inline constexpr std::size_t kRecordHeaderSize = 5;
/// TLSPlaintext.length / TLSInnerPlaintext.content limit: 2^14 (§5.1).
inline constexpr std::size_t kMaxPlaintext = 16384;
/// TLSCiphertext.length limit: 2^14 + 256 (§5.2).
inline constexpr std::size_t kMaxCiphertext = kMaxPlaintext + 256;
/// TLSInnerPlaintext limit: content + type + padding ≤ 2^14 + 1 (§5.4).
inline constexpr std::size_t kMaxInnerPlaintext = kMaxPlaintext + 1;
/// All three TLS 1.3 AEADs have a 16-byte tag and a 12-byte nonce (§5.3).
inline constexpr std::size_t kAeadTagSize = 16;
inline constexpr std::size_t kAeadNonceSize = 12;
/// The record a sender writes at most: header + full inner plaintext + tag.
inline constexpr std::size_t kMaxRecordSize = kRecordHeaderSize + kMaxInnerPlaintext + kAeadTagSize;
static_assert(kMaxRecordSize == 16406);
/// The record a receiver accepts at most (a peer may pad up to kMaxCiphertext).
inline constexpr std::size_t kMaxReceivedRecordSize = kRecordHeaderSize + kMaxCiphertext;

/// legacy_record_version values: 0x0301 on a first ClientHello (Chrome/BoringSSL), 0x0303
/// everywhere else (§5.1).
inline constexpr std::uint16_t kRecordVersionTls10 = 0x0301;
inline constexpr std::uint16_t kRecordVersionTls12 = 0x0303;
inline constexpr std::uint16_t kLegacyVersion = 0x0303;
inline constexpr std::uint16_t kVersionTls13 = 0x0304;

/// The middlebox-compatibility ChangeCipherSpec record `14 03 03 00 01 01` (§D.4).
inline constexpr std::uint8_t kDummyCcs[6] = {0x14, 0x03, 0x03, 0x00, 0x01, 0x01};

/// Per-key limits (§5.5). AES-GCM: 2^24.5 full-size records; we stop at 2^24 so a
/// KeyUpdate (or a reconnect) always happens first. ChaCha20-Poly1305: the sequence
/// number (2^64) is the bound; we stop 2^16 records before it.
inline constexpr std::uint64_t kAesGcmRecordLimit = std::uint64_t{1} << 24;
inline constexpr std::uint64_t kChaChaRecordLimit = ~std::uint64_t{0} - 0xFFFF;

/// Consecutive records that carry no progress (empty records, CCS after the first) that
/// we accept before failing the connection — BoringSSL's and OpenSSL's value (32), the
/// one a target behind REALITY-style bridging most likely has (reality-tls.md A.5).
inline constexpr std::size_t kMaxEmptyRecords = 32;

// ---- Handshake (RFC 8446 §4) -----------------------------------------------------------

enum class HandshakeType : std::uint8_t {
  kClientHello = 1,
  kServerHello = 2,
  kNewSessionTicket = 4,
  kEndOfEarlyData = 5,
  kEncryptedExtensions = 8,
  kCertificate = 11,
  kCertificateRequest = 13,
  kCertificateVerify = 15,
  kFinished = 20,
  kKeyUpdate = 24,
  kCompressedCertificate = 25,  ///< RFC 8879
  kMessageHash = 254,
};

/// msg_type(1) ‖ length(3).
inline constexpr std::size_t kHandshakeHeaderSize = 4;
/// Our cap on one handshake message (a Certificate of a long chain is the largest; real
/// chains are a few KiB, the largest public ones ~20 KiB). Hostile lengths stop here.
inline constexpr std::size_t kMaxHandshakeMessage = 128 * 1024;
/// Our cap on a decompressed certificate message (RFC 8879 §4 bounds it at 2^24; a
/// decompression bomb stops here).
inline constexpr std::size_t kMaxUncompressedCertificate = 128 * 1024;
/// Bytes of handshake messages buffered before they are complete.
inline constexpr std::size_t kMaxHandshakeBuffer = kMaxHandshakeMessage + kMaxPlaintext;

inline constexpr std::size_t kRandomSize = 32;
inline constexpr std::size_t kLegacySessionIdSize = 32;
/// Where legacy_session_id sits in a ClientHello record: header(5) + msg header(4) +
/// legacy_version(2) + random(32) + session id length(1) (reality-tls.md A.2).
inline constexpr std::size_t kSessionIdOffsetInRecord = 5 + 4 + 2 + 32 + 1;
static_assert(kSessionIdOffsetInRecord == 44);

/// The ServerHello.random of a HelloRetryRequest: SHA-256("HelloRetryRequest") (§4.1.3).
inline constexpr std::uint8_t kHelloRetryRequestRandom[32] = {
    0xCF, 0x21, 0xAD, 0x74, 0xE5, 0x9A, 0x61, 0x11, 0xBE, 0x1D, 0x8C, 0x02, 0x1E, 0x65, 0xB8, 0x91,
    0xC2, 0xA2, 0x11, 0x16, 0x7A, 0xBB, 0x8C, 0x5E, 0x07, 0x9E, 0x09, 0xE2, 0xC8, 0xA8, 0x33, 0x9C};

// ---- Extensions ------------------------------------------------------------------------

namespace ext {
inline constexpr std::uint16_t kServerName = 0x0000;
inline constexpr std::uint16_t kStatusRequest = 0x0005;
inline constexpr std::uint16_t kSupportedGroups = 0x000A;
inline constexpr std::uint16_t kEcPointFormats = 0x000B;
inline constexpr std::uint16_t kSignatureAlgorithms = 0x000D;
inline constexpr std::uint16_t kAlpn = 0x0010;
inline constexpr std::uint16_t kSignedCertificateTimestamp = 0x0012;
inline constexpr std::uint16_t kPadding = 0x0015;
inline constexpr std::uint16_t kExtendedMasterSecret = 0x0017;
inline constexpr std::uint16_t kCompressCertificate = 0x001B;  ///< RFC 8879
inline constexpr std::uint16_t kRecordSizeLimit = 0x001C;      ///< RFC 8449
inline constexpr std::uint16_t kSessionTicket = 0x0023;
inline constexpr std::uint16_t kPreSharedKey = 0x0029;
inline constexpr std::uint16_t kEarlyData = 0x002A;
inline constexpr std::uint16_t kSupportedVersions = 0x002B;
inline constexpr std::uint16_t kCookie = 0x002C;
inline constexpr std::uint16_t kPskKeyExchangeModes = 0x002D;
inline constexpr std::uint16_t kKeyShare = 0x0033;
inline constexpr std::uint16_t kAlpsOld = 0x4469;  ///< application_settings, Chrome ≤ 132
inline constexpr std::uint16_t kAlps = 0x44CD;     ///< application_settings, Chrome ≥ 133
inline constexpr std::uint16_t kTrustAnchors = 0xCA34;
inline constexpr std::uint16_t kEncryptedClientHello = 0xFE0D;
inline constexpr std::uint16_t kRenegotiationInfo = 0xFF01;
}  // namespace ext

/// NamedGroup (§4.2.7; draft-ietf-tls-ecdhe-mlkem for 0x11EC).
namespace group {
inline constexpr std::uint16_t kSecp256r1 = 0x0017;
inline constexpr std::uint16_t kSecp384r1 = 0x0018;
inline constexpr std::uint16_t kX25519 = 0x001D;
inline constexpr std::uint16_t kX25519MlKem768 = 0x11EC;
}  // namespace group

/// Key share sizes: X25519 public (32); X25519MLKEM768 client = ML-KEM-768 ek(1184) ‖
/// X25519(32), server = ML-KEM-768 ciphertext(1088) ‖ X25519(32); shared = ss(32) ‖ x(32).
inline constexpr std::size_t kX25519ShareSize = 32;
inline constexpr std::size_t kHybridClientShareSize = 1184 + 32;
inline constexpr std::size_t kHybridServerShareSize = 1088 + 32;
inline constexpr std::size_t kHybridSharedSize = 32 + 32;

/// SignatureScheme (§4.2.3; ML-DSA: draft-ietf-tls-mldsa).
namespace sigscheme {
inline constexpr std::uint16_t kRsaPkcs1Sha256 = 0x0401;
inline constexpr std::uint16_t kRsaPkcs1Sha384 = 0x0501;
inline constexpr std::uint16_t kRsaPkcs1Sha512 = 0x0601;
inline constexpr std::uint16_t kEcdsaSecp256r1Sha256 = 0x0403;
inline constexpr std::uint16_t kEcdsaSecp384r1Sha384 = 0x0503;
inline constexpr std::uint16_t kEcdsaSecp521r1Sha512 = 0x0603;
inline constexpr std::uint16_t kRsaPssRsaeSha256 = 0x0804;
inline constexpr std::uint16_t kRsaPssRsaeSha384 = 0x0805;
inline constexpr std::uint16_t kRsaPssRsaeSha512 = 0x0806;
inline constexpr std::uint16_t kEd25519 = 0x0807;
inline constexpr std::uint16_t kMlDsa44 = 0x0904;
inline constexpr std::uint16_t kMlDsa65 = 0x0905;
inline constexpr std::uint16_t kMlDsa87 = 0x0906;
}  // namespace sigscheme

/// CertificateCompressionAlgorithm (RFC 8879 §3).
namespace certcomp {
inline constexpr std::uint16_t kZlib = 1;
inline constexpr std::uint16_t kBrotli = 2;
inline constexpr std::uint16_t kZstd = 3;
}  // namespace certcomp

/// KeyUpdateRequest (§4.6.3).
enum class KeyUpdateRequest : std::uint8_t { kNotRequested = 0, kRequested = 1 };

}  // namespace qeli::tls
