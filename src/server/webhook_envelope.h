// What one webhook delivery carries (docs/OPERATIONS.md "Webhooks"): the JSON envelope
// `{id, type, created_at, node, data}` and the signature headers of the Standard Webhooks
// scheme, as Stripe and svix sign:
//
//   Qeli-Webhook-Id:        msg_<24 hex>      (idempotency: a retry repeats it)
//   Qeli-Webhook-Timestamp: unix seconds of this attempt
//   Qeli-Webhook-Signature: v1,<base64(HMAC-SHA256(secret, id "." timestamp "." body))>
//
// A receiver recomputes the HMAC over the raw body and refuses a timestamp older than a few
// minutes (replays). `data` holds what the event says — profile, user, device, address,
// reason, byte counts — and never a password, token or key.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "control/api.h"
#include "crypto/random.h"

namespace qeli::server {

/// "msg_" and 24 random hex digits.
std::string new_webhook_id(crypto::Rng& rng);

/// The envelope's JSON (compact, keys in a fixed order). `node`: this server's host name.
std::string webhook_body(const control::Event& e, std::string_view id, std::string_view node);

/// The Qeli-Webhook-Signature value for one attempt: "v1," + base64 HMAC-SHA256.
std::string webhook_signature(std::string_view secret, std::string_view id, std::int64_t unix_secs,
                              std::string_view body);

}  // namespace qeli::server
