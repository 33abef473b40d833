#include "tls/alert.h"

namespace qeli::tls {

const char* to_string(TlsError e) {
  switch (e) {
    case TlsError::kDecode: return "malformed TLS message";
    case TlsError::kRecordOverflow: return "TLS record too long";
    case TlsError::kBadRecordMac: return "TLS record did not authenticate";
    case TlsError::kUnexpectedMessage: return "unexpected TLS message";
    case TlsError::kIllegalParameter: return "illegal TLS parameter";
    case TlsError::kHandshakeFailure: return "no common TLS parameters";
    case TlsError::kUnsupportedSuite: return "peer chose a cipher suite we did not offer";
    case TlsError::kUnsupportedGroup: return "peer chose a key-share group we did not offer";
    case TlsError::kBadKeyShare: return "bad key share";
    case TlsError::kBadFinished: return "Finished does not match the transcript";
    case TlsError::kBadCertificate: return "certificate message does not decode";
    case TlsError::kProtocolVersion: return "peer does not speak TLS 1.3";
    case TlsError::kTooLarge: return "TLS message over our size cap";
    case TlsError::kTooManyEmptyRecords: return "too many TLS records without progress";
    case TlsError::kKeyLimit: return "TLS key reached its record limit";
    case TlsError::kPeerAlert: return "peer sent a fatal TLS alert";
    case TlsError::kPeerClosed: return "peer closed the TLS connection";
    case TlsError::kTimeout: return "TLS handshake timed out";
    case TlsError::kInternal: return "TLS library failure";
  }
  return "?";
}

std::optional<AlertDescription> alert_for(TlsError e) {
  switch (e) {
    case TlsError::kDecode: return AlertDescription::kDecodeError;
    case TlsError::kRecordOverflow: return AlertDescription::kRecordOverflow;
    case TlsError::kBadRecordMac: return AlertDescription::kBadRecordMac;
    case TlsError::kUnexpectedMessage:
    case TlsError::kTooManyEmptyRecords: return AlertDescription::kUnexpectedMessage;
    case TlsError::kIllegalParameter:
    case TlsError::kUnsupportedSuite:
    case TlsError::kUnsupportedGroup:
    case TlsError::kBadKeyShare: return AlertDescription::kIllegalParameter;
    case TlsError::kHandshakeFailure: return AlertDescription::kHandshakeFailure;
    case TlsError::kBadFinished: return AlertDescription::kDecryptError;
    case TlsError::kBadCertificate: return AlertDescription::kBadCertificate;
    case TlsError::kProtocolVersion: return AlertDescription::kProtocolVersion;
    case TlsError::kTooLarge: return AlertDescription::kDecodeError;
    case TlsError::kKeyLimit:
    case TlsError::kInternal: return AlertDescription::kInternalError;
    case TlsError::kPeerAlert:
    case TlsError::kPeerClosed:
    case TlsError::kTimeout: return std::nullopt;
  }
  return std::nullopt;
}

const char* to_string(AlertDescription d) {
  switch (d) {
    case AlertDescription::kCloseNotify: return "close_notify";
    case AlertDescription::kUnexpectedMessage: return "unexpected_message";
    case AlertDescription::kBadRecordMac: return "bad_record_mac";
    case AlertDescription::kRecordOverflow: return "record_overflow";
    case AlertDescription::kHandshakeFailure: return "handshake_failure";
    case AlertDescription::kBadCertificate: return "bad_certificate";
    case AlertDescription::kIllegalParameter: return "illegal_parameter";
    case AlertDescription::kDecodeError: return "decode_error";
    case AlertDescription::kDecryptError: return "decrypt_error";
    case AlertDescription::kProtocolVersion: return "protocol_version";
    case AlertDescription::kInsufficientSecurity: return "insufficient_security";
    case AlertDescription::kInternalError: return "internal_error";
    case AlertDescription::kUserCanceled: return "user_canceled";
    case AlertDescription::kMissingExtension: return "missing_extension";
    case AlertDescription::kUnsupportedExtension: return "unsupported_extension";
    case AlertDescription::kUnrecognizedName: return "unrecognized_name";
    case AlertDescription::kNoApplicationProtocol: return "no_application_protocol";
  }
  return "unknown alert";
}

Result<Alert, TlsError> parse_alert(ByteSpan body) {
  if (body.size() != 2) return fail(TlsError::kDecode);
  return Alert{static_cast<AlertLevel>(body[0]), static_cast<AlertDescription>(body[1])};
}

bool is_fatal(const Alert& a) {
  return a.description != AlertDescription::kCloseNotify &&
         a.description != AlertDescription::kUserCanceled;
}

}  // namespace qeli::tls
