#include "tls/transcript.h"

#include <cstdlib>

#include "tls/constants.h"

namespace qeli::tls {

void Transcript::set_algorithm(crypto::DigestAlgorithm alg) {
  if (digester_) std::abort();
  digester_.emplace(alg);
  digester_->update(pending_);
  pending_.clear();
  pending_.shrink_to_fit();
}

void Transcript::add(ByteSpan message) {
  if (digester_) {
    digester_->update(message);
  } else {
    append(pending_, message);
  }
}

void Transcript::restart_after_hrr() {
  if (!digester_) std::abort();
  const crypto::DigestValue ch1 = digester_->value();
  const auto alg = digester_->algorithm();
  digester_.emplace(alg);
  const std::uint8_t header[4] = {static_cast<std::uint8_t>(HandshakeType::kMessageHash), 0, 0,
                                  static_cast<std::uint8_t>(ch1.size)};
  digester_->update(header);
  digester_->update(ch1.span());
}

crypto::DigestValue Transcript::hash() const {
  if (!digester_) std::abort();
  return digester_->value();
}

}  // namespace qeli::tls
