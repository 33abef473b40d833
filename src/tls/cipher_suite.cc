#include "tls/cipher_suite.h"

#include "tls/constants.h"

namespace qeli::tls {

std::optional<CipherSuite> cipher_suite_from_code(std::uint16_t code) {
  switch (code) {
    case 0x1301: return CipherSuite::kAes128GcmSha256;
    case 0x1302: return CipherSuite::kAes256GcmSha384;
    case 0x1303: return CipherSuite::kChaCha20Poly1305Sha256;
    default: return std::nullopt;
  }
}

std::uint64_t record_limit_of(CipherSuite s) {
  return s == CipherSuite::kChaCha20Poly1305Sha256 ? kChaChaRecordLimit : kAesGcmRecordLimit;
}

const char* to_string(CipherSuite s) {
  switch (s) {
    case CipherSuite::kAes128GcmSha256: return "TLS_AES_128_GCM_SHA256";
    case CipherSuite::kAes256GcmSha384: return "TLS_AES_256_GCM_SHA384";
    case CipherSuite::kChaCha20Poly1305Sha256: return "TLS_CHACHA20_POLY1305_SHA256";
  }
  return "?";
}

}  // namespace qeli::tls
