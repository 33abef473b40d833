#include "handshake/key_schedule.h"

#include <array>
#include <cstring>

#include "crypto/hkdf.h"

namespace qeli::handshake {

crypto::KdfScheme kdf_scheme(Mode mode, bool bind_static) {
  if (mode == Mode::kPlain)
    return bind_static ? crypto::KdfScheme::kBound : crypto::KdfScheme::kClassic;
  return bind_static ? crypto::KdfScheme::kHybridBound : crypto::KdfScheme::kHybrid;
}

crypto::Key32 derive_proof(std::string_view label, const crypto::Key32& es, const crypto::Key32& ee,
                           std::span<const std::uint8_t, 32> transcript) {
  std::array<std::uint8_t, 64> info{};
  if (label.size() + transcript.size() > info.size()) std::abort();  // our labels are short
  std::memcpy(info.data(), label.data(), label.size());
  std::memcpy(info.data() + label.size(), transcript.data(), transcript.size());
  crypto::Key32 out;
  crypto::hkdf(es.span(), ee.span(), {info.data(), label.size() + transcript.size()}, out.span());
  return out;
}

}  // namespace qeli::handshake
