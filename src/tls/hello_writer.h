// The skeleton every ClientHello record we build shares: record header, handshake header,
// legacy_version 0x0303, random, a 32-byte legacy_session_id, the cipher list, the one
// null compression method and the extension block (RFC 8446 §4.1.2, §5.1).
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "base/bytes.h"
#include "tls/constants.h"

namespace qeli::tls {

/// The whole record. `extensions` is the extension block content (without its length).
Bytes write_client_hello_record(std::uint16_t record_version,
                                std::span<const std::uint8_t, kRandomSize> random,
                                std::span<const std::uint8_t, kLegacySessionIdSize> session_id,
                                std::span<const std::uint16_t> cipher_suites, ByteSpan extensions);

/// Overwrites legacy_session_id (bytes [44, 76)) of a ClientHello record built above, e.g.
/// with a REALITY token sealed over the finished hello (reality-tls.md A.2, B.8).
void set_session_id(MutableByteSpan record,
                    std::span<const std::uint8_t, kLegacySessionIdSize> session_id);

/// The ClientHello handshake message inside such a record (what the transcript hashes).
inline ByteSpan hello_message(ByteSpan record) { return record.subspan(kRecordHeaderSize); }

}  // namespace qeli::tls
