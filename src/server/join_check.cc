#include "server/join_check.h"

#include "crypto/ct.h"
#include "handshake/key_schedule.h"

namespace qeli::server {

std::string join_proof_refusal(const Session& session, const handshake::JoinRequest& join) {
  if (join.proof) {
    if (!session.join_secret) return "JOIN with a proof for a session that has no join secret";
    const crypto::Key32 expect = handshake::join_proof(*session.join_secret, join.transcript);
    if (!crypto::ct_equal(expect.span(), *join.proof)) {
      return "JOIN with a wrong proof of the session's keys";
    }
    return {};
  }
  if (session.peer_state.caps.load() != 0) {
    return "JOIN without the proof of the session's keys (its client took our extensions)";
  }
  return {};
}

}  // namespace qeli::server
