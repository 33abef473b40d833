// Alerts (RFC 8446 §6) and the closed set of reasons a TLS connection fails for.
//
// Every failure inside src/tls is a TlsError; each maps to the alert we send for it
// (§6.2), so a hostile or broken peer gets the alert a real stack would send and the
// log names the reason.
#pragma once

#include <cstdint>
#include <optional>

#include "base/bytes.h"
#include "base/result.h"

namespace qeli::tls {

/// AlertDescription (§6).
enum class AlertDescription : std::uint8_t {
  kCloseNotify = 0,
  kUnexpectedMessage = 10,
  kBadRecordMac = 20,
  kRecordOverflow = 22,
  kHandshakeFailure = 40,
  kBadCertificate = 42,
  kIllegalParameter = 47,
  kDecodeError = 50,
  kDecryptError = 51,
  kProtocolVersion = 70,
  kInsufficientSecurity = 71,
  kInternalError = 80,
  kUserCanceled = 90,
  kMissingExtension = 109,
  kUnsupportedExtension = 110,
  kUnrecognizedName = 112,
  kNoApplicationProtocol = 120,
};

enum class AlertLevel : std::uint8_t { kWarning = 1, kFatal = 2 };

/// Why a connection failed (or ended). Closed set; see to_string().
enum class TlsError : std::uint8_t {
  kDecode,               ///< a length or field does not parse (decode_error)
  kRecordOverflow,       ///< a record longer than §5.1/§5.2 allow
  kBadRecordMac,         ///< a record did not authenticate
  kUnexpectedMessage,    ///< a message or record type out of order
  kIllegalParameter,     ///< a field with a forbidden value
  kHandshakeFailure,     ///< no common parameters
  kUnsupportedSuite,     ///< the peer chose a cipher suite we did not offer
  kUnsupportedGroup,     ///< the peer chose a group we did not offer / cannot do
  kBadKeyShare,          ///< a key share of the wrong size or a low-order point
  kBadFinished,          ///< Finished.verify_data does not match the transcript
  kBadCertificate,       ///< a (compressed) certificate that does not decode
  kProtocolVersion,      ///< not TLS 1.3
  kTooLarge,             ///< over one of our buffering caps (constants.h)
  kTooManyEmptyRecords,  ///< more than kMaxEmptyRecords records without progress
  kKeyLimit,             ///< a key reached its record limit (§5.5) without an update
  kPeerAlert,            ///< the peer sent a fatal alert
  kPeerClosed,           ///< close_notify or the transport closed
  kTimeout,              ///< the handshake did not finish in time
  kInternal,             ///< a library call failed (never for valid input)
};

const char* to_string(TlsError e);

/// The alert we send when failing with `e` (nothing for kPeerAlert/kPeerClosed/kTimeout).
std::optional<AlertDescription> alert_for(TlsError e);
const char* to_string(AlertDescription d);

struct Alert {
  AlertLevel level;
  AlertDescription description;
};

/// Parses the 2-byte Alert body (§6). kDecode unless exactly 2 bytes.
Result<Alert, TlsError> parse_alert(ByteSpan body);

/// Fatal unless close_notify or user_canceled (§6: in TLS 1.3 every other alert is fatal
/// whatever level it carries).
bool is_fatal(const Alert& a);

}  // namespace qeli::tls
