// The handshake transcript hash (RFC 8446 §4.4.1): Hash(M1 ‖ … ‖ Mn) over whole handshake
// messages (4-byte header included, record headers excluded).
//
// The hash is fixed by the cipher suite, which the ServerHello names after the
// ClientHello was sent, so messages added before set_algorithm() are kept and hashed
// then. A HelloRetryRequest replaces ClientHello1 by the synthetic message_hash message
// (§4.4.1): call restart_after_hrr() right after adding ClientHello1 and before the HRR.
#pragma once

#include <optional>

#include "base/bytes.h"
#include "crypto/digest.h"

namespace qeli::tls {

class Transcript {
 public:
  Transcript() = default;

  /// Picks the hash; messages added before are hashed now. Once only.
  void set_algorithm(crypto::DigestAlgorithm alg);
  bool has_algorithm() const { return digester_.has_value(); }

  /// Appends one whole handshake message.
  void add(ByteSpan message);

  /// Replaces everything added so far (ClientHello1) by message_hash(Hash(ClientHello1)).
  /// Requires set_algorithm() first.
  void restart_after_hrr();

  /// Hash of the messages added so far. Requires set_algorithm().
  crypto::DigestValue hash() const;

 private:
  std::optional<crypto::Digester> digester_;
  Bytes pending_;  // until the algorithm is known
};

}  // namespace qeli::tls
