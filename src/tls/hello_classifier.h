// Which client sent a ClientHello, from its fingerprint (tls/fingerprint.h): our
// Chromium-156 hello, the 0.7.16 realtls hello, the 0.7.16 fake-TLS hello, or another
// client. The terminator uses it to stay within what a 0.7.16 realtls client can do
// (suites 0x1301/0x1302 only); the log and counters name it.
#pragma once

#include <cstdint>

#include "base/bytes.h"
#include "base/result.h"
#include "tls/client_hello.h"

namespace qeli::tls {

enum class HelloFamily : std::uint8_t {
  kChromium156,      ///< JA4 t13d1517h2_8daaf6152771_cb7bf5808d99 (or its http/1.1-only form)
  kQeli0716Realtls,  ///< JA4 t13d1516h2_8daaf6152771_e5627efa2ab1, one X25519 key in both shares
  kQeli0716FakeTls,  ///< GREASE + 0x1301..0x1303 only, supported_versions [0x0304]
  kOtherTls13,       ///< any other hello that offers TLS 1.3
  kNotTls13,         ///< a hello without TLS 1.3
};
const char* to_string(HelloFamily f);

HelloFamily classify_hello(const ClientHelloInfo& ch);

/// Parses one whole ClientHello record (header included) and classifies it.
Result<HelloFamily, TlsError> classify_hello_record(ByteSpan record);

}  // namespace qeli::tls
