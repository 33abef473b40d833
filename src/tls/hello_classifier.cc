#include "tls/hello_classifier.h"

#include <algorithm>

#include "tls/constants.h"
#include "tls/fingerprint.h"
#include "tls/record_buffer.h"

namespace qeli::tls {

const char* to_string(HelloFamily f) {
  switch (f) {
    case HelloFamily::kChromium156: return "chromium-156";
    case HelloFamily::kQeli0716Realtls: return "qeli-0.7.16-realtls";
    case HelloFamily::kQeli0716FakeTls: return "qeli-0.7.16-fake-tls";
    case HelloFamily::kOtherTls13: return "other-tls13";
    case HelloFamily::kNotTls13: return "not-tls13";
  }
  return "?";
}

HelloFamily classify_hello(const ClientHelloInfo& ch) {
  if (!ch.offers_tls13()) return HelloFamily::kNotTls13;
  const KeyShareEntry* hybrid = ch.key_share(group::kX25519MlKem768);
  const KeyShareEntry* x = ch.key_share(group::kX25519);
  const bool same_x25519 =
      hybrid && x && hybrid->key_exchange.size() == kHybridClientShareSize &&
      std::equal(x->key_exchange.begin(), x->key_exchange.end(), hybrid->key_exchange.end() - 32);
  const std::string j = ja4(ch);
  if ((j == "t13d1517h2_8daaf6152771_cb7bf5808d99" ||
       j.rfind("t13d1516h1_8daaf6152771_", 0) == 0) &&
      hybrid && x && !same_x25519) {
    return HelloFamily::kChromium156;
  }
  if (j == "t13d1516h2_8daaf6152771_e5627efa2ab1" && same_x25519) {
    return HelloFamily::kQeli0716Realtls;
  }
  if (ch.cipher_suites.size() == 4 && is_grease(ch.cipher_suites[0]) &&
      ch.supported_versions == std::vector<std::uint16_t>{kVersionTls13}) {
    return HelloFamily::kQeli0716FakeTls;
  }
  return HelloFamily::kOtherTls13;
}

Result<HelloFamily, TlsError> classify_hello_record(ByteSpan record) {
  if (record.size() < kRecordHeaderSize ||
      record[0] != static_cast<std::uint8_t>(ContentType::kHandshake)) {
    return fail(TlsError::kUnexpectedMessage);
  }
  if (auto s = check_record_header(record.first(kRecordHeaderSize)); !s) return fail(s.error());
  if (record.size() != kRecordHeaderSize + ((record[3] << 8) | record[4]))
    return fail(TlsError::kDecode);
  auto ch = parse_client_hello(record.subspan(kRecordHeaderSize));
  if (!ch) return fail(ch.error());
  return classify_hello(*ch);
}

}  // namespace qeli::tls
