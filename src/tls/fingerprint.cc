#include "tls/fingerprint.h"

#include <openssl/evp.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "crypto/sha256.h"
#include "tls/constants.h"

namespace qeli::tls {
namespace {

std::vector<std::uint16_t> without_grease(const std::vector<std::uint16_t>& v) {
  std::vector<std::uint16_t> out;
  for (std::uint16_t x : v) {
    if (!is_grease(x)) out.push_back(x);
  }
  return out;
}

std::vector<std::uint16_t> extension_types(const ClientHelloInfo& ch) {
  std::vector<std::uint16_t> out;
  for (const Extension& e : ch.extensions) out.push_back(e.type);
  return out;
}

std::string join_dec(const std::vector<std::uint16_t>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i != 0) s += '-';
    s += std::to_string(v[i]);
  }
  return s;
}

std::string hex4(std::uint16_t v) {
  char b[5];
  std::snprintf(b, sizeof b, "%04x", v);
  return b;
}

std::string join_hex(const std::vector<std::uint16_t>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i != 0) s += ',';
    s += hex4(v[i]);
  }
  return s;
}

std::string sha12(const std::string& s) {
  if (s.empty()) return "000000000000";
  return to_hex(crypto::sha256(as_bytes(s))).substr(0, 12);
}

bool alnum(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

std::string alpn_code(const ClientHelloInfo& ch) {
  if (ch.alpn.empty() || ch.alpn.front().empty()) return "00";
  const std::string_view a = ch.alpn.front();
  const char first = a.front(), last = a.back();
  if (static_cast<unsigned char>(first) > 127) return "99";
  if (alnum(first) && alnum(last)) return std::string{first, last};
  const std::string h = to_hex(as_bytes(a));
  return std::string{h.front(), h.back()};
}

std::string version_code(const ClientHelloInfo& ch) {
  std::uint16_t v = ch.legacy_version;
  const auto versions = without_grease(ch.supported_versions);
  if (!versions.empty()) v = *std::max_element(versions.begin(), versions.end());
  switch (v) {
    case 0x0304: return "13";
    case 0x0303: return "12";
    case 0x0302: return "11";
    case 0x0301: return "10";
    case 0x0300: return "s3";
    case 0x0002: return "s2";
    case 0xfeff: return "d1";
    case 0xfefd: return "d2";
    case 0xfefc: return "d3";
    default: return "00";
  }
}

std::string two_digits(std::size_t n) {
  char b[3];
  std::snprintf(b, sizeof b, "%02zu", std::min<std::size_t>(n, 99));
  return b;
}

struct Ja4Parts {
  std::string a, ciphers, exts, sigalgs;
};

Ja4Parts ja4_parts(const ClientHelloInfo& ch, bool original_order) {
  const auto ciphers = without_grease(ch.cipher_suites);
  const auto exts = without_grease(extension_types(ch));
  Ja4Parts p;
  p.a = "t" + version_code(ch) + (ch.server_name ? "d" : "i") + two_digits(ciphers.size()) +
        two_digits(exts.size()) + alpn_code(ch);
  auto c = ciphers;
  auto e = exts;
  if (!original_order) {
    std::sort(c.begin(), c.end());
    e.erase(
        std::remove_if(e.begin(), e.end(),
                       [](std::uint16_t t) { return t == ext::kServerName || t == ext::kAlpn; }),
        e.end());
    std::sort(e.begin(), e.end());
  }
  p.ciphers = join_hex(c);
  p.exts = join_hex(e);
  p.sigalgs = join_hex(without_grease(ch.signature_algorithms));
  return p;
}

std::string c_input(const Ja4Parts& p) {
  return p.sigalgs.empty() ? p.exts : p.exts + "_" + p.sigalgs;
}

std::string hashed(const Ja4Parts& p) {
  const std::string c = p.exts.empty() ? "000000000000" : sha12(c_input(p));
  return p.a + "_" + sha12(p.ciphers) + "_" + c;
}

std::string raw(const Ja4Parts& p) { return p.a + "_" + p.ciphers + "_" + c_input(p); }

}  // namespace

std::string ja3_string(const ClientHelloInfo& ch) {
  std::vector<std::uint16_t> formats;
  if (const Extension* e = find_extension(ch.extensions, ext::kEcPointFormats)) {
    if (!e->data.empty() && e->data[0] + 1u <= e->data.size()) {
      for (std::size_t i = 1; i <= e->data[0]; ++i) formats.push_back(e->data[i]);
    }
  }
  return std::to_string(ch.legacy_version) + "," + join_dec(without_grease(ch.cipher_suites)) +
         "," + join_dec(without_grease(extension_types(ch))) + "," +
         join_dec(without_grease(ch.supported_groups)) + "," + join_dec(formats);
}

std::string ja3(const ClientHelloInfo& ch) {
  const std::string s = ja3_string(ch);
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  EVP_Digest(s.data(), s.size(), md, &n, EVP_md5(), nullptr);
  return to_hex({md, n});
}

std::string ja4(const ClientHelloInfo& ch) { return hashed(ja4_parts(ch, false)); }
std::string ja4_r(const ClientHelloInfo& ch) { return raw(ja4_parts(ch, false)); }
std::string ja4_o(const ClientHelloInfo& ch) { return hashed(ja4_parts(ch, true)); }
std::string ja4_ro(const ClientHelloInfo& ch) { return raw(ja4_parts(ch, true)); }

}  // namespace qeli::tls
