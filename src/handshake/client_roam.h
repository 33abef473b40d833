// What a client's UDP session needs to roam (docs/PROTOCOL.md §20): once both ends
// negotiated caps::kRoam and AUTH OK carried the profile's nonce key (`x_roam_key`, 64 hex
// digits), the client's nonces carry the session's connection ids.
#pragma once

#include <memory>

#include "handshake/client_handshake.h"
#include "wire/roam_nonce.h"

namespace qeli::handshake {

/// The nonce source for `session`'s sender (wire::PacketCodec::set_send_roam), or null
/// when it does not roam: kRoam not negotiated, no AUTH OK (a JOIN), or no valid
/// `x_roam_key`. The decoded key is wiped before returning.
std::unique_ptr<wire::RoamNonces> client_roam_nonces(const ClientSession& session);

}  // namespace qeli::handshake
