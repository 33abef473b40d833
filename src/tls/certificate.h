// Certificate (RFC 8446 §4.4.2) and CompressedCertificate (RFC 8879 §4) message bodies.
#pragma once

#include <cstdint>
#include <vector>

#include "base/bytes.h"
#include "base/result.h"
#include "tls/alert.h"

namespace qeli::tls {

struct CertificateEntry {
  ByteSpan cert_data;   ///< DER X.509 (or a raw public key)
  ByteSpan extensions;  ///< the entry's extension block content
};

struct CertificateInfo {
  ByteSpan request_context;
  std::vector<CertificateEntry> entries;  ///< leaf first
};

/// Parses a Certificate body; each cert_data must be non-empty. Views into `body`.
Result<CertificateInfo, TlsError> parse_certificate(ByteSpan body);

/// A Certificate body with an empty context and no per-entry extensions.
Bytes build_certificate(const std::vector<ByteSpan>& chain_der);

struct CompressedCertificateInfo {
  std::uint16_t algorithm = 0;
  std::uint32_t uncompressed_length = 0;
  ByteSpan compressed;
};

/// Parses a CompressedCertificate body: algorithm(2) ‖ uncompressed_length(3) ‖
/// compressed<1..2^24-1>. A zero or over-cap (kMaxUncompressedCertificate)
/// uncompressed_length is kBadCertificate.
Result<CompressedCertificateInfo, TlsError> parse_compressed_certificate(ByteSpan body);

/// A CompressedCertificate body.
Bytes build_compressed_certificate(std::uint16_t algorithm, std::uint32_t uncompressed_length,
                                   ByteSpan compressed);

}  // namespace qeli::tls
