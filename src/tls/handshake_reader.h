// HandshakeReader: reassembles handshake messages (RFC 8446 §4) from the handshake
// content of records, which may split or coalesce messages freely (§5.1).
//
// A declared length over kMaxHandshakeMessage fails at once (kTooLarge), before any of
// its bytes are waited for. at_boundary() tells whether a partial message is pending:
// §5.1 forbids a message to span a key change, so the state machines check it whenever
// the keys change.
#pragma once

#include <cstdint>
#include <optional>

#include "base/bytes.h"
#include "base/result.h"
#include "tls/alert.h"
#include "tls/constants.h"

namespace qeli::tls {

struct HandshakeMessage {
  HandshakeType type;
  ByteSpan body;     ///< after the 4-byte header
  ByteSpan message;  ///< header + body (what the transcript hashes)
};

class HandshakeReader {
 public:
  /// Appends the content of one handshake record.
  Status<TlsError> add(ByteSpan content);
  /// The next complete message (valid until the next add()/next()), or nullopt.
  Result<std::optional<HandshakeMessage>, TlsError> next();
  /// True when no partial message is buffered.
  bool at_boundary() const { return pos_ == buf_.size(); }

 private:
  Bytes buf_;
  std::size_t pos_ = 0;
};

/// Writes a handshake message header + body to `out`.
void append_handshake(Bytes& out, HandshakeType type, ByteSpan body);

}  // namespace qeli::tls
