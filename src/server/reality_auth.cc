#include "server/reality_auth.h"

#include <algorithm>

#include "tls/client_hello.h"
#include "wire/reality_token.h"

namespace qeli::server {

const char* to_string(RealityVerdict v) {
  switch (v) {
    case RealityVerdict::kAccepted: return "accepted";
    case RealityVerdict::kBadHello: return "no parseable ClientHello with an X25519 share";
    case RealityVerdict::kBadToken: return "session_id is not a token for this server";
    case RealityVerdict::kExpired: return "token outside the ±120 s window";
    case RealityVerdict::kUnknownShortId: return "unknown short id";
    case RealityVerdict::kRevoked: return "short id of a disabled user";
    case RealityVerdict::kReplay: return "replayed token";
  }
  return "?";
}

RealityDecision authenticate_hello(ByteSpan record, const RealityPolicy& policy,
                                   std::uint64_t unix_now) {
  RealityDecision d;
  if (record.size() < 5 || policy.identity == nullptr) return d;
  auto ch = tls::parse_client_hello(record.subspan(5));
  if (!ch || ch->session_id.size() != wire::kRealityTokenSize) return d;
  const tls::KeyShareEntry* share = ch->key_share(0x001D);
  if (share == nullptr || share->key_exchange.size() != 32) return d;
  const auto shared =
      crypto::x25519(policy.identity->private_key.span(),
                     std::span<const std::uint8_t, 32>(share->key_exchange.data(), 32));
  if (!shared) return d;  // a low-order share: never a client of ours
  const std::span<const std::uint8_t, 32> sid(ch->session_id.data(), 32);
  const auto token = wire::open_reality_token(shared->span(), sid);
  if (!token) {
    d.verdict = RealityVerdict::kBadToken;
    return d;
  }
  if (!wire::within_window(unix_now, token->unix_secs)) {
    d.verdict = RealityVerdict::kExpired;
    return d;
  }
  const config::ShortId& id = token->short_id;
  const bool shared_id =
      std::find(policy.shared_ids.begin(), policy.shared_ids.end(), id) != policy.shared_ids.end();
  if (!shared_id) {
    d.verdict = RealityVerdict::kUnknownShortId;
    if (policy.users != nullptr) {
      const auto snap = policy.users->snapshot();
      for (const auto& u : snap->users) {
        for (const auto& s : u.reality_short_ids) {
          if (config::parse_short_id(s) != id) continue;
          if (!u.enabled || policy.users->disabled(u.name)) {
            d.verdict = RealityVerdict::kRevoked;
            return d;
          }
          d.owner = u.name;
        }
      }
    }
    if (!d.owner) return d;
  }
  if (policy.replay != nullptr) {
    wire::RealityToken t{};
    std::copy(sid.begin(), sid.end(), t.begin());
    if (!policy.replay->observe(t, unix_now)) {
      d.verdict = RealityVerdict::kReplay;
      d.owner.reset();
      return d;
    }
  }
  d.verdict = RealityVerdict::kAccepted;
  return d;
}

}  // namespace qeli::server
