#include "handshake/tls_binding.h"

#include "base/bytes.h"

namespace qeli::handshake {

crypto::Digest32 tls_binding_proof(const TlsExporter& exporter, BindingSide side) {
  const std::string_view label =
      side == BindingSide::kClient ? "qeli tls binding client" : "qeli tls binding server";
  return crypto::hmac_sha256(exporter, as_bytes(label));
}

}  // namespace qeli::handshake
