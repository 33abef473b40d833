// RFC 8879 certificate compression codecs: brotli (libbrotli) and zlib (zlib), both from
// Debian. Decompression is bounded: the output must be exactly the announced length and
// never above kMaxUncompressedCertificate, so a decompression bomb costs at most that.
#pragma once

#include <cstdint>
#include <optional>

#include "base/bytes.h"
#include "base/result.h"
#include "tls/alert.h"

namespace qeli::tls {

/// True for the algorithms we can decompress and compress (zlib 1, brotli 2).
bool cert_compression_supported(std::uint16_t algorithm);

/// Decompresses `compressed` with `algorithm`; the result must be exactly
/// `uncompressed_length` (≤ kMaxUncompressedCertificate) bytes, else kBadCertificate.
Result<Bytes, TlsError> decompress_certificate(std::uint16_t algorithm, ByteSpan compressed,
                                               std::uint32_t uncompressed_length);

/// Compresses a Certificate message body; nullopt for an unsupported algorithm.
std::optional<Bytes> compress_certificate(std::uint16_t algorithm, ByteSpan certificate_body);

}  // namespace qeli::tls
