// DNS answers the proxy writes itself, and the in-place edits it makes to upstream
// answers before they reach a client (RFC 1035 §4.1; truncation §4.2.1 / RFC 7766 §8).
//
// Every function takes offsets from a parse of the same bytes (dns/message.h), so no
// edit can reach outside the message.
#pragma once

#include <cstdint>
#include <span>

#include "base/bytes.h"
#include "dns/message.h"

namespace qeli::dns {

/// An answer with `rcode` and no records to a client's message: with the question echoed
/// when `q` is its parse, header only (QDCOUNT 0) when the message did not parse.
/// Precondition: `query` holds at least the 12-byte header.
Bytes error_reply(ByteSpan query, const Query* q, Rcode rcode);

/// The answer for a blocked name: an A query gets one A record 0.0.0.0 (TTL kBlockedTtl);
/// every other type (AAAA included) gets NOERROR with no record (NODATA), so clients
/// neither retry nor fall back to another resolver.
Bytes blocked_reply(ByteSpan query, const Query& q);

/// Turns an upstream's (or the cache's) answer into the answer to this client's query:
/// the client's ID and RD bit, and its question bytes (its letter case) when they have
/// the same length as the answer's question.
void address_reply(MutableByteSpan reply, std::size_t reply_question_end, ByteSpan query,
                   const Query& q);

/// The header and question of `reply` with TC set and no records: what a UDP client
/// whose buffer is too small for the whole answer gets (it retries over TCP).
Bytes truncated_reply(ByteSpan reply, std::size_t question_end);

/// Subtracts `elapsed_secs` from the TTL at each offset (never below zero).
void age_ttls(MutableByteSpan msg, std::span<const std::uint32_t> ttl_offsets,
              std::uint32_t elapsed_secs);

/// Writes `id` into the header. Precondition: at least 2 bytes.
void set_id(MutableByteSpan msg, std::uint16_t id);

}  // namespace qeli::dns
