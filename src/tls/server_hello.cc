#include "tls/server_hello.h"

#include <algorithm>

#include "tls/handshake_reader.h"
#include "wire/byte_io.h"

namespace qeli::tls {

Result<ServerHelloInfo, TlsError> parse_server_hello(ByteSpan message) {
  wire::ByteReader r(message);
  std::uint8_t type = 0;
  std::uint32_t len = 0;
  if (!r.u8(type) || !r.u24(len)) return fail(TlsError::kDecode);
  if (type != static_cast<std::uint8_t>(HandshakeType::kServerHello)) {
    return fail(TlsError::kUnexpectedMessage);
  }
  if (len != r.remaining()) return fail(TlsError::kDecode);
  ServerHelloInfo sh;
  sh.message = message;
  ByteSpan exts;
  if (!r.u16(sh.legacy_version) || !r.bytes(kRandomSize, sh.random) || !r.vec8(sh.session_id) ||
      !r.u16(sh.cipher_suite) || !r.u8(sh.compression_method) || !r.vec16(exts) || !r.empty()) {
    return fail(TlsError::kDecode);
  }
  if (sh.session_id.size() > kLegacySessionIdSize) return fail(TlsError::kDecode);
  if (sh.compression_method != 0) return fail(TlsError::kIllegalParameter);
  sh.hello_retry = std::equal(sh.random.begin(), sh.random.end(), kHelloRetryRequestRandom);
  auto e = parse_extension_block(exts);
  if (!e) return fail(e.error());
  sh.extensions = std::move(*e);
  for (const Extension& x : sh.extensions) {
    if (x.type == ext::kSupportedVersions) {
      if (x.data.size() != 2) return fail(TlsError::kDecode);
      sh.selected_version = static_cast<std::uint16_t>((x.data[0] << 8) | x.data[1]);
    } else if (x.type == ext::kKeyShare) {
      auto ks = parse_server_key_share(x.data, sh.hello_retry);
      if (!ks) return fail(ks.error());
      sh.key_share = *ks;
    } else if (x.type == ext::kCookie) {
      wire::ByteReader cr(x.data);
      ByteSpan cookie;
      if (!cr.vec16(cookie) || !cr.empty() || cookie.empty()) return fail(TlsError::kDecode);
      sh.cookie = cookie;
    }
  }
  return sh;
}

Bytes build_server_hello(const ServerHelloParams& p) {
  Bytes body;
  wire::ByteWriter w(body);
  w.u16(kLegacyVersion);
  w.bytes(p.random);
  w.u8(static_cast<std::uint8_t>(p.session_id.size()));
  w.bytes(p.session_id);
  w.u16(p.cipher_suite);
  w.u8(0);
  const std::size_t ext = w.open_length(2);
  for (const OwnedExtension& e : p.extensions) {
    w.u16(e.type);
    w.vec16(e.body);
  }
  w.close_length(ext, 2);
  Bytes out;
  append_handshake(out, HandshakeType::kServerHello, body);
  return out;
}

Bytes server_key_share_body(std::uint16_t group, ByteSpan key_exchange) {
  Bytes b;
  wire::ByteWriter w(b);
  w.u16(group);
  w.vec16(key_exchange);
  return b;
}

}  // namespace qeli::tls
