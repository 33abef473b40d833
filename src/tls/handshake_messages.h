// The small handshake message bodies (RFC 8446 §4.3.1, §4.4.3, §4.4.4, §4.6.1, §4.6.3):
// EncryptedExtensions, CertificateVerify, Finished, NewSessionTicket, KeyUpdate. Parse
// (strict: no trailing bytes) and build. Views point into the caller's bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "base/bytes.h"
#include "base/result.h"
#include "tls/alert.h"
#include "tls/constants.h"
#include "tls/extensions.h"

namespace qeli::tls {

struct EncryptedExtensionsInfo {
  std::vector<Extension> extensions;
  std::optional<std::string_view> alpn;  ///< the selected protocol (exactly one, §3.2 RFC 7301)
};
Result<EncryptedExtensionsInfo, TlsError> parse_encrypted_extensions(ByteSpan body);

struct CertificateVerifyInfo {
  std::uint16_t scheme = 0;
  ByteSpan signature;
};
Result<CertificateVerifyInfo, TlsError> parse_certificate_verify(ByteSpan body);
Bytes build_certificate_verify(std::uint16_t scheme, ByteSpan signature);

struct NewSessionTicketInfo {
  std::uint32_t lifetime = 0;
  std::uint32_t age_add = 0;
  ByteSpan nonce;
  ByteSpan ticket;
  ByteSpan extensions;  ///< block content
};
Result<NewSessionTicketInfo, TlsError> parse_new_session_ticket(ByteSpan body);
/// A NewSessionTicket body; `extensions` is the block content (may be empty).
Bytes build_new_session_ticket(std::uint32_t lifetime, std::uint32_t age_add, ByteSpan nonce,
                               ByteSpan ticket, ByteSpan extensions);

/// KeyUpdate body: one byte, 0 or 1; anything else kIllegalParameter (§4.6.3).
Result<KeyUpdateRequest, TlsError> parse_key_update(ByteSpan body);

/// The whole KeyUpdate handshake message (header included).
Bytes key_update_message(KeyUpdateRequest request);

/// The whole Finished handshake message for `verify_data`.
Bytes finished_message(ByteSpan verify_data);

}  // namespace qeli::tls
