#include "tls/cert_compression.h"

#include <brotli/decode.h>
#include <brotli/encode.h>
#include <zlib.h>

#include "tls/constants.h"

namespace qeli::tls {

bool cert_compression_supported(std::uint16_t algorithm) {
  return algorithm == certcomp::kZlib || algorithm == certcomp::kBrotli;
}

namespace {

Result<Bytes, TlsError> brotli_decompress(ByteSpan in, std::size_t want) {
  Bytes out(want);
  BrotliDecoderState* s = BrotliDecoderCreateInstance(nullptr, nullptr, nullptr);
  if (s == nullptr) return fail(TlsError::kInternal);
  std::size_t avail_in = in.size();
  const std::uint8_t* next_in = in.data();
  std::size_t avail_out = out.size();
  std::uint8_t* next_out = out.data();
  const BrotliDecoderResult r =
      BrotliDecoderDecompressStream(s, &avail_in, &next_in, &avail_out, &next_out, nullptr);
  BrotliDecoderDestroyInstance(s);
  // Success only if the stream ended, all input was used and exactly `want` came out;
  // NEEDS_MORE_OUTPUT means it would grow past the announced length.
  if (r != BROTLI_DECODER_RESULT_SUCCESS || avail_in != 0 || avail_out != 0) {
    return fail(TlsError::kBadCertificate);
  }
  return out;
}

Result<Bytes, TlsError> zlib_decompress(ByteSpan in, std::size_t want) {
  Bytes out(want + 1);  // one spare byte detects output longer than announced
  z_stream z{};
  if (inflateInit(&z) != Z_OK) return fail(TlsError::kInternal);
  z.next_in = const_cast<Bytef*>(in.data());
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = out.data();
  z.avail_out = static_cast<uInt>(out.size());
  const int r = inflate(&z, Z_FINISH);
  const std::size_t produced = out.size() - z.avail_out;
  const bool used_all = z.avail_in == 0;
  inflateEnd(&z);
  if (r != Z_STREAM_END || !used_all || produced != want) return fail(TlsError::kBadCertificate);
  out.resize(want);
  return out;
}

}  // namespace

Result<Bytes, TlsError> decompress_certificate(std::uint16_t algorithm, ByteSpan compressed,
                                               std::uint32_t uncompressed_length) {
  if (uncompressed_length == 0 || uncompressed_length > kMaxUncompressedCertificate) {
    return fail(TlsError::kBadCertificate);
  }
  switch (algorithm) {
    case certcomp::kBrotli: return brotli_decompress(compressed, uncompressed_length);
    case certcomp::kZlib: return zlib_decompress(compressed, uncompressed_length);
    default: return fail(TlsError::kBadCertificate);
  }
}

std::optional<Bytes> compress_certificate(std::uint16_t algorithm, ByteSpan body) {
  if (algorithm == certcomp::kBrotli) {
    std::size_t n = BrotliEncoderMaxCompressedSize(body.size());
    Bytes out(n == 0 ? body.size() + 64 : n);
    n = out.size();
    if (BrotliEncoderCompress(BROTLI_DEFAULT_QUALITY, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_GENERIC,
                              body.size(), body.data(), &n, out.data()) != BROTLI_TRUE) {
      return std::nullopt;
    }
    out.resize(n);
    return out;
  }
  if (algorithm == certcomp::kZlib) {
    uLongf n = compressBound(static_cast<uLong>(body.size()));
    Bytes out(n);
    if (compress2(out.data(), &n, body.data(), static_cast<uLong>(body.size()),
                  Z_DEFAULT_COMPRESSION) != Z_OK) {
      return std::nullopt;
    }
    out.resize(n);
    return out;
  }
  return std::nullopt;
}

}  // namespace qeli::tls
