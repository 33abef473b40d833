#include "tls/target_shape.h"

#include <openssl/evp.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <cstdio>
#include <memory>

#include "tls/certificate.h"
#include "tls/constants.h"
#include "tls/extensions.h"
#include "tls/handshake_messages.h"
#include "tls/handshake_reader.h"

namespace qeli::tls {

std::size_t TargetShape::certificate_message_size() const {
  return certificate_compression != 0 ? compressed_certificate.size()
                                      : kHandshakeHeaderSize + certificate_body.size();
}

std::size_t TargetShape::flight_size() const {
  const std::size_t cv = kHandshakeHeaderSize + 2 + 2 + signature_size;
  const std::size_t fin = kHandshakeHeaderSize + crypto::digest_size(hash_of(suite));
  return encrypted_extensions.size() + certificate_message_size() + cv + fin;
}

namespace {

std::string hex4(std::uint16_t v) {
  char b[8];
  std::snprintf(b, sizeof b, "%04x", v);
  return b;
}

std::string alpn_of(const Bytes& ee_message) {
  if (ee_message.size() < kHandshakeHeaderSize) return "-";
  auto ee = parse_encrypted_extensions(ByteSpan(ee_message).subspan(kHandshakeHeaderSize));
  if (!ee || !ee->alpn) return "none";
  return std::string(*ee->alpn);
}

}  // namespace

std::string describe(const TargetShape& s) {
  std::string out = std::string(to_string(s.suite)) + " group=" + hex4(s.group) + " sh=[";
  for (std::size_t i = 0; i < s.server_hello_extensions.size(); ++i) {
    out += (i ? "," : "") + hex4(s.server_hello_extensions[i]);
  }
  out += std::string("] ccs=") + (s.change_cipher_spec ? "yes" : "no");
  out += " ee=" + std::to_string(s.encrypted_extensions.size()) +
         "B alpn=" + alpn_of(s.encrypted_extensions);
  std::size_t certs = 0;
  if (auto c = parse_certificate(s.certificate_body)) certs = c->entries.size();
  out += " chain=" + std::to_string(certs) + "x/" + std::to_string(s.certificate_body.size()) + "B";
  out += s.certificate_compression != 0
             ? " compressed=" + std::to_string(s.certificate_compression) + "/" +
                   std::to_string(s.compressed_certificate.size()) + "B"
             : std::string(" uncompressed");
  out += " cv=" + hex4(s.signature_scheme) + "/" + std::to_string(s.signature_size) + "B records=[";
  std::size_t prev = 0;
  for (std::size_t i = 0; i < s.flight_records.size(); ++i) {
    out += (i ? "," : "") + std::to_string(s.flight_records[i].content_end - prev);
    if (s.flight_records[i].padding)
      out += "+" + std::to_string(s.flight_records[i].padding) + "pad";
    prev = s.flight_records[i].content_end;
  }
  out += "] tickets=[";
  for (std::size_t i = 0; i < s.ticket_records.size(); ++i) {
    out += i ? "," : "";
    for (std::size_t k = 0; k < s.ticket_records[i].tickets.size(); ++k) {
      const TicketShape& t = s.ticket_records[i].tickets[k];
      out +=
          (k ? "+" : "") + std::to_string(t.ticket_size) + "/" + std::to_string(t.lifetime) + "s";
    }
  }
  out += "] unprompted=[";
  for (std::size_t i = 0; i < s.unprompted_records.size(); ++i) {
    out += (i ? "," : "") + std::to_string(s.unprompted_records[i]);
  }
  out += "] source=" + s.source;
  return out;
}

namespace {

struct PkeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};
using Pkey = std::unique_ptr<EVP_PKEY, PkeyFree>;
using Cert = std::unique_ptr<X509, X509Free>;

void add_ext(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  if (X509_EXTENSION* e = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value)) {
    X509_add_ext(cert, e, -1);
    X509_EXTENSION_free(e);
  }
}

// One certificate for `cn` signed by `issuer_key` (self-signed when issuer is null).
Cert make_cert(const std::string& cn, const std::string& organization, EVP_PKEY* key, X509* issuer,
               EVP_PKEY* issuer_key, bool ca, const std::string& san, crypto::Rng& rng) {
  Cert c(X509_new());
  X509_set_version(c.get(), 2);
  std::uint8_t serial[16];
  rng.fill(serial);
  serial[0] &= 0x7F;
  ASN1_INTEGER* sn = ASN1_INTEGER_new();
  BIGNUM* bn = BN_bin2bn(serial, sizeof serial, nullptr);
  BN_to_ASN1_INTEGER(bn, sn);
  X509_set_serialNumber(c.get(), sn);
  ASN1_INTEGER_free(sn);
  BN_free(bn);
  X509_gmtime_adj(X509_getm_notBefore(c.get()), -30L * 86400);
  X509_gmtime_adj(X509_getm_notAfter(c.get()), ca ? 3650L * 86400 : 60L * 86400);
  X509_set_pubkey(c.get(), key);
  X509_NAME* name = X509_get_subject_name(c.get());
  X509_NAME_add_entry_by_txt(name, "C", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("US"),
                             -1, -1, 0);
  X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(organization.c_str()), -1, -1,
                             0);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0);
  X509_set_issuer_name(c.get(), issuer ? X509_get_subject_name(issuer) : name);
  X509* iss = issuer ? issuer : c.get();
  add_ext(c.get(), iss, NID_basic_constraints,
          ca ? "critical,CA:TRUE,pathlen:0" : "critical,CA:FALSE");
  add_ext(c.get(), iss, NID_key_usage,
          ca ? "critical,keyCertSign,cRLSign" : "critical,digitalSignature");
  add_ext(c.get(), iss, NID_subject_key_identifier, "hash");
  if (issuer) add_ext(c.get(), iss, NID_authority_key_identifier, "keyid:always");
  if (!ca) {
    add_ext(c.get(), iss, NID_ext_key_usage, "serverAuth,clientAuth");
    add_ext(c.get(), iss, NID_subject_alt_name, san.c_str());
  }
  X509_sign(c.get(), issuer_key, EVP_sha256());
  return c;
}

Bytes der(X509* c) {
  unsigned char* p = nullptr;
  const int n = i2d_X509(c, &p);
  Bytes out;
  if (n > 0) out.assign(p, p + n);
  OPENSSL_free(p);
  return out;
}

}  // namespace

TargetShape fallback_shape(std::string_view sni, std::string_view why, crypto::Rng& rng) {
  TargetShape s;
  s.source = "fallback: " + std::string(why);
  s.obtained = std::chrono::system_clock::now();
  // EE: ALPN "h2" only, as nginx/OpenSSL answer a Chromium hello.
  const Bytes ee_body = {0x00, 0x09, 0x00, 0x10, 0x00, 0x05, 0x00, 0x03, 0x02, 'h', '2'};
  append_handshake(s.encrypted_extensions, HandshakeType::kEncryptedExtensions, ee_body);
  // A two-certificate chain (an intermediate-like CA and the leaf for `sni`), ECDSA P-256.
  Pkey ca_key(EVP_EC_gen("P-256"));
  Pkey leaf_key(EVP_EC_gen("P-256"));
  const std::string host = sni.empty() ? "localhost" : std::string(sni);
  Cert ca = make_cert("R3 ECC", "Public Trust Services", ca_key.get(), nullptr, ca_key.get(), true,
                      "", rng);
  Cert leaf =
      make_cert(host, "", leaf_key.get(), ca.get(), ca_key.get(), false, "DNS:" + host, rng);
  const Bytes leaf_der = der(leaf.get()), ca_der = der(ca.get());
  s.certificate_body = build_certificate({leaf_der, ca_der});
  s.signature_scheme = sigscheme::kEcdsaSecp256r1Sha256;
  s.signature_size = 71;
  // One record per message, as OpenSSL writes them.
  const std::size_t ee = s.encrypted_extensions.size();
  const std::size_t cert = kHandshakeHeaderSize + s.certificate_body.size();
  const std::size_t cv = kHandshakeHeaderSize + 4 + s.signature_size;
  const std::size_t fin = kHandshakeHeaderSize + 32;
  s.flight_records = {{ee, 0}, {ee + cert, 0}, {ee + cert + cv, 0}, {ee + cert + cv + fin, 0}};
  // Two tickets after the client Finished, one per record, OpenSSL 3 style.
  for (std::uint8_t i = 0; i < 2; ++i) {
    TicketShape t;
    t.lifetime = 300;  // nginx's ssl_session_timeout default (5 min)
    t.nonce = {0, 0, 0, 0, 0, 0, 0, i};
    t.ticket_size = 224;  // measured: nginx 1.22 / OpenSSL 3.0 (tests/unit/tls/nginx_target_test)
    s.ticket_records.push_back({{t}, 0});
  }
  s.unprompted_records = {62};  // nginx's HTTP/2 SETTINGS + WINDOW_UPDATE
  return s;
}

}  // namespace qeli::tls
