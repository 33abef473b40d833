#include "tls/certificate.h"

#include "tls/constants.h"
#include "wire/byte_io.h"

namespace qeli::tls {

Result<CertificateInfo, TlsError> parse_certificate(ByteSpan body) {
  wire::ByteReader r(body);
  CertificateInfo info;
  ByteSpan list;
  if (!r.vec8(info.request_context) || !r.vec24(list) || !r.empty()) {
    return fail(TlsError::kDecode);
  }
  wire::ByteReader lr(list);
  while (!lr.empty()) {
    CertificateEntry e;
    if (!lr.vec24(e.cert_data) || !lr.vec16(e.extensions) || e.cert_data.empty()) {
      return fail(TlsError::kDecode);
    }
    info.entries.push_back(e);
  }
  return info;
}

Bytes build_certificate(const std::vector<ByteSpan>& chain_der) {
  Bytes b;
  wire::ByteWriter w(b);
  w.u8(0);  // certificate_request_context
  const std::size_t list = w.open_length(3);
  for (ByteSpan der : chain_der) {
    const std::size_t one = w.open_length(3);
    w.bytes(der);
    w.close_length(one, 3);
    w.u16(0);  // extensions
  }
  w.close_length(list, 3);
  return b;
}

Result<CompressedCertificateInfo, TlsError> parse_compressed_certificate(ByteSpan body) {
  wire::ByteReader r(body);
  CompressedCertificateInfo c;
  if (!r.u16(c.algorithm) || !r.u24(c.uncompressed_length) || !r.vec24(c.compressed) ||
      !r.empty() || c.compressed.empty()) {
    return fail(TlsError::kDecode);
  }
  if (c.uncompressed_length == 0 || c.uncompressed_length > kMaxUncompressedCertificate) {
    return fail(TlsError::kBadCertificate);
  }
  return c;
}

Bytes build_compressed_certificate(std::uint16_t algorithm, std::uint32_t uncompressed_length,
                                   ByteSpan compressed) {
  Bytes b;
  wire::ByteWriter w(b);
  w.u16(algorithm);
  w.u24(uncompressed_length);
  const std::size_t n = w.open_length(3);
  w.bytes(compressed);
  w.close_length(n, 3);
  return b;
}

}  // namespace qeli::tls
