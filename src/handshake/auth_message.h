// The client's first encrypted message and the bonding JOIN (docs/PROTOCOL.md "AUTH",
// "JOIN"). These are record PLAINTEXTS; the state machines seal and open them.
//
//   AUTH   = key_proof(32) ‖ 00 ‖ device_id(16) ‖ "user:pass"   (0.7.x with device id)
//          = key_proof(32) ‖ "user:pass"                        (older clients)
//   JOIN   = "QELIJOIN" ‖ token(16) ‖ stream_index(1)            (exactly 25 bytes)
//   JOINOK = "JOINOK"
//   AUTHOK = "OK:" ‖ JSON (see auth_ok.h)
//
// The forms are told apart by the byte after the proof: a username is UTF-8 text and
// never starts with 0x00. Credentials are split at the FIRST ':' (a user name cannot
// contain ':', a password can).
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "base/bytes.h"
#include "base/result.h"
#include "handshake/types.h"

namespace qeli::handshake {

inline constexpr std::string_view kJoinMagic = "QELIJOIN";
inline constexpr std::string_view kJoinOk = "JOINOK";
inline constexpr std::string_view kAuthOkPrefix = "OK:";

struct AuthMessage {
  std::array<std::uint8_t, wire::kProofSize> key_proof{};
  std::optional<DeviceId> device_id;  ///< absent = the older form
  std::string user;
  std::string password;
};

enum class AuthMessageError : std::uint8_t {
  kTooShort,   ///< shorter than the proof (+ marker + device id)
  kTooLong,    ///< credentials over wire::kMaxCredentialsSize
  kNoColon,    ///< no ':' between user and password
  kEmptyUser,  ///< nothing before the ':'
  kBadUtf8,    ///< credentials are not valid UTF-8 (or contain NUL)
};

/// The plaintext of an AUTH record. Returns nullopt if the credentials would be invalid
/// (empty user, ':' in the user, over the size limit, not UTF-8).
std::optional<Bytes> build_auth(const AuthMessage& m);
Result<AuthMessage, AuthMessageError> parse_auth(ByteSpan plaintext);

struct JoinMessage {
  JoinToken token{};
  std::uint8_t stream_index = 0;
  /// Our extension (PROTOCOL §19): the proof of the session's keys, 32 bytes after the
  /// index (57 bytes in all). 0.7.16 servers read the first 25 and ignore the rest; ours
  /// require it from a client that took our extensions.
  std::optional<std::array<std::uint8_t, 32>> proof;
};
Bytes build_join(const JoinMessage& m);
/// True iff the plaintext is shaped like a JOIN (magic; exactly 25 bytes, or 57 with
/// the proof).
bool is_join(ByteSpan plaintext);
std::optional<JoinMessage> parse_join(ByteSpan plaintext);

/// Strict UTF-8 validation (no overlongs, no surrogates, ≤ U+10FFFF) that also refuses NUL.
bool valid_utf8(std::string_view s);

}  // namespace qeli::handshake
