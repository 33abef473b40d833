// SourceKey: what the server's per-source defences count by — the new-session rate limit,
// the brute-force lockouts and `qeli list-blocked`/`unblock`. An IPv4 source is its
// address; an IPv6 source is its /64, because one subscriber or one VPS gets a whole /64
// (RFC 6177, RFC 7421) and could otherwise take a fresh address for every attempt.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "transport/sock_addr.h"

namespace qeli::server {

/// IPv4: 0xffffffff'00000000 | address (host order). IPv6: the first 64 bits of the
/// address, big-endian. The two never meet: ffff:ffff::/32 lies in ff00::/8 (multicast),
/// which is never a source address. 0 for an unset address.
using SourceKey = std::uint64_t;

SourceKey source_key(const transport::SockAddr& a);
/// "192.0.2.7" or "2001:db8:1:2::/64".
std::string to_string_key(SourceKey k);
/// Accepts an IPv4 address, an IPv6 address (its /64) or an IPv6 /64 prefix
/// ("2001:db8:1:2::/64"); nullopt for anything else.
std::optional<SourceKey> parse_source_key(std::string_view text);

}  // namespace qeli::server
