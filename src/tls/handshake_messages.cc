#include "tls/handshake_messages.h"

#include "tls/handshake_reader.h"
#include "wire/byte_io.h"

namespace qeli::tls {

Result<EncryptedExtensionsInfo, TlsError> parse_encrypted_extensions(ByteSpan body) {
  wire::ByteReader r(body);
  ByteSpan block;
  if (!r.vec16(block) || !r.empty()) return fail(TlsError::kDecode);
  auto exts = parse_extension_block(block);
  if (!exts) return fail(exts.error());
  EncryptedExtensionsInfo ee;
  ee.extensions = std::move(*exts);
  if (const Extension* a = find_extension(ee.extensions, ext::kAlpn)) {
    auto names = parse_alpn(a->data);
    if (!names) return fail(names.error());
    if (names->size() != 1) return fail(TlsError::kIllegalParameter);
    ee.alpn = names->front();
  }
  return ee;
}

Result<CertificateVerifyInfo, TlsError> parse_certificate_verify(ByteSpan body) {
  wire::ByteReader r(body);
  CertificateVerifyInfo cv;
  if (!r.u16(cv.scheme) || !r.vec16(cv.signature) || !r.empty() || cv.signature.empty()) {
    return fail(TlsError::kDecode);
  }
  return cv;
}

Bytes build_certificate_verify(std::uint16_t scheme, ByteSpan signature) {
  Bytes b;
  wire::ByteWriter w(b);
  w.u16(scheme);
  w.vec16(signature);
  return b;
}

Result<NewSessionTicketInfo, TlsError> parse_new_session_ticket(ByteSpan body) {
  wire::ByteReader r(body);
  NewSessionTicketInfo t;
  if (!r.u32(t.lifetime) || !r.u32(t.age_add) || !r.vec8(t.nonce) || !r.vec16(t.ticket) ||
      !r.vec16(t.extensions) || !r.empty() || t.ticket.empty()) {
    return fail(TlsError::kDecode);
  }
  return t;
}

Bytes build_new_session_ticket(std::uint32_t lifetime, std::uint32_t age_add, ByteSpan nonce,
                               ByteSpan ticket, ByteSpan extensions) {
  Bytes b;
  wire::ByteWriter w(b);
  w.u32(lifetime);
  w.u32(age_add);
  w.u8(static_cast<std::uint8_t>(nonce.size()));
  w.bytes(nonce);
  w.vec16(ticket);
  w.vec16(extensions);
  return b;
}

Result<KeyUpdateRequest, TlsError> parse_key_update(ByteSpan body) {
  if (body.size() != 1) return fail(TlsError::kDecode);
  if (body[0] > 1) return fail(TlsError::kIllegalParameter);
  return static_cast<KeyUpdateRequest>(body[0]);
}

Bytes key_update_message(KeyUpdateRequest request) {
  Bytes out;
  const std::uint8_t body = static_cast<std::uint8_t>(request);
  append_handshake(out, HandshakeType::kKeyUpdate, ByteSpan(&body, 1));
  return out;
}

Bytes finished_message(ByteSpan verify_data) {
  Bytes out;
  append_handshake(out, HandshakeType::kFinished, verify_data);
  return out;
}

}  // namespace qeli::tls
