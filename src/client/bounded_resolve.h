// Resolving the server's name again before a reconnect, within a time bound. getaddrinfo
// has no timeout of its own: with the kill switch engaged (the host's resolvers blocked)
// or no network, one lookup can take the resolver's whole timeout × attempts (10 s and
// more), which would delay every reconnect. The lookup runs on a thread of its own; if it
// has not answered within `limit`, the caller goes on with the addresses it knows and the
// thread finishes (and is forgotten) in the background.
#pragma once

#include <chrono>
#include <optional>
#include <vector>

#include "transport/endpoint.h"

namespace qeli::client {

/// The name's addresses (both families, transport::resolve), or nullopt if the resolver failed or
/// took longer than `limit` (the error text, if any, in `*why`).
std::optional<std::vector<transport::SockAddr>> resolve_within(const transport::HostPort& hp,
                                                               std::chrono::milliseconds limit,
                                                               std::string* why = nullptr);

}  // namespace qeli::client
