#include "tls/client_hello.h"

#include <algorithm>

#include "base/endian.h"
#include "tls/constants.h"
#include "wire/byte_io.h"

namespace qeli::tls {

bool ClientHelloInfo::offers_tls13() const {
  return std::find(supported_versions.begin(), supported_versions.end(), kVersionTls13) !=
         supported_versions.end();
}

const KeyShareEntry* ClientHelloInfo::key_share(std::uint16_t group) const {
  for (const KeyShareEntry& e : key_shares) {
    if (e.group == group) return &e;
  }
  return nullptr;
}

bool ClientHelloInfo::offers_suite(std::uint16_t code) const {
  return std::find(cipher_suites.begin(), cipher_suites.end(), code) != cipher_suites.end();
}

bool ClientHelloInfo::offers_cert_compression(std::uint16_t alg) const {
  return std::find(cert_compression.begin(), cert_compression.end(), alg) != cert_compression.end();
}

namespace {

// Decodes the bodies ClientHelloInfo exposes; any malformed one fails the hello.
Status<TlsError> decode_bodies(ClientHelloInfo& ch) {
  for (std::size_t i = 0; i < ch.extensions.size(); ++i) {
    const Extension& e = ch.extensions[i];
    switch (e.type) {
      case ext::kServerName: {
        auto r = parse_server_name(e.data);
        if (!r) return fail(r.error());
        ch.server_name = *r;
        break;
      }
      case ext::kAlpn: {
        auto r = parse_alpn(e.data);
        if (!r) return fail(r.error());
        ch.alpn = std::move(*r);
        break;
      }
      case ext::kSupportedVersions: {
        auto r = parse_u16_list(e.data, 1);
        if (!r) return fail(r.error());
        ch.supported_versions = std::move(*r);
        break;
      }
      case ext::kSupportedGroups: {
        auto r = parse_u16_list(e.data, 2);
        if (!r) return fail(r.error());
        ch.supported_groups = std::move(*r);
        break;
      }
      case ext::kSignatureAlgorithms: {
        auto r = parse_u16_list(e.data, 2);
        if (!r) return fail(r.error());
        ch.signature_algorithms = std::move(*r);
        break;
      }
      case ext::kCompressCertificate: {
        auto r = parse_u16_list(e.data, 1);
        if (!r) return fail(r.error());
        ch.cert_compression = std::move(*r);
        break;
      }
      case ext::kKeyShare: {
        auto r = parse_client_key_shares(e.data);
        if (!r) return fail(r.error());
        ch.key_shares = std::move(*r);
        break;
      }
      case ext::kPreSharedKey:
        if (i + 1 != ch.extensions.size()) return fail(TlsError::kIllegalParameter);
        ch.has_psk = true;
        break;
      default: break;
    }
  }
  return {};
}

}  // namespace

Result<ClientHelloInfo, TlsError> parse_client_hello(ByteSpan message) {
  wire::ByteReader r(message);
  std::uint8_t type = 0;
  std::uint32_t len = 0;
  if (!r.u8(type) || !r.u24(len)) return fail(TlsError::kDecode);
  if (type != static_cast<std::uint8_t>(HandshakeType::kClientHello)) {
    return fail(TlsError::kUnexpectedMessage);
  }
  if (len != r.remaining()) return fail(TlsError::kDecode);
  ClientHelloInfo ch;
  ch.message = message;
  ByteSpan suites, exts;
  if (!r.u16(ch.legacy_version) || !r.bytes(kRandomSize, ch.random) || !r.vec8(ch.session_id) ||
      !r.vec16(suites) || !r.vec8(ch.compression_methods)) {
    return fail(TlsError::kDecode);
  }
  if (ch.session_id.size() > kLegacySessionIdSize || suites.empty() || suites.size() % 2 != 0 ||
      ch.compression_methods.empty()) {
    return fail(TlsError::kDecode);
  }
  if (!r.empty()) {  // extensions are optional before TLS 1.3, required to be well formed
    if (!r.vec16(exts) || !r.empty()) return fail(TlsError::kDecode);
  }
  auto cs = parse_u16_values(suites);
  if (!cs) return fail(cs.error());
  ch.cipher_suites = std::move(*cs);
  auto e = parse_extension_block(exts);
  if (!e) return fail(e.error());
  ch.extensions = std::move(*e);
  auto s = decode_bodies(ch);
  if (!s) return fail(s.error());
  return ch;
}

}  // namespace qeli::tls
