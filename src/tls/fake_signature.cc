#include "tls/fake_signature.h"

#include "tls/constants.h"

namespace qeli::tls {
namespace {

// A DER INTEGER of a uniformly random non-negative value below 2^(8·n): minimal length
// (leading zero bytes dropped), a 00 prefix when the top bit is set.
void der_integer(Bytes& out, std::size_t n, crypto::Rng& rng) {
  Bytes v(n);
  rng.fill(v);
  std::size_t i = 0;
  while (i + 1 < v.size() && v[i] == 0) ++i;
  const bool pad = (v[i] & 0x80) != 0;
  out.push_back(0x02);
  out.push_back(static_cast<std::uint8_t>(v.size() - i + (pad ? 1 : 0)));
  if (pad) out.push_back(0);
  out.insert(out.end(), v.begin() + static_cast<std::ptrdiff_t>(i), v.end());
}

Bytes ecdsa(std::size_t field_bytes, crypto::Rng& rng) {
  Bytes ints;
  der_integer(ints, field_bytes, rng);
  der_integer(ints, field_bytes, rng);
  Bytes out = {0x30};
  if (ints.size() >= 0x80) out.push_back(0x81);  // P-521 signatures need a long form
  out.push_back(static_cast<std::uint8_t>(ints.size()));
  append(out, ints);
  return out;
}

}  // namespace

Bytes fake_signature(std::uint16_t scheme, std::size_t observed_size, crypto::Rng& rng) {
  switch (scheme) {
    case sigscheme::kEcdsaSecp256r1Sha256: return ecdsa(32, rng);
    case sigscheme::kEcdsaSecp384r1Sha384: return ecdsa(48, rng);
    case sigscheme::kEcdsaSecp521r1Sha512: return ecdsa(66, rng);
    default: break;
  }
  Bytes out(observed_size == 0 ? 64 : observed_size);
  rng.fill(out);
  const bool rsa = scheme == sigscheme::kRsaPkcs1Sha256 || scheme == sigscheme::kRsaPkcs1Sha384 ||
                   scheme == sigscheme::kRsaPkcs1Sha512 || scheme == sigscheme::kRsaPssRsaeSha256 ||
                   scheme == sigscheme::kRsaPssRsaeSha384 || scheme == sigscheme::kRsaPssRsaeSha512;
  if (rsa) out[0] &= 0x7F;  // below a modulus whose top bit is set
  return out;
}

}  // namespace qeli::tls
