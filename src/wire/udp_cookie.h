// Return-routability cookies over UDP (OUR extension, docs/PROTOCOL.md §11 "Return
// routability"): three single-fragment messages (idx 0, count 1) in the handshake's
// envelope, each a fixed size, validated whole before any field is read.
//
//   marker    C → S  msg 3 (junk) ‖ nonce[8] ‖ tag[8]     "I answer challenges"
//   challenge S → C  msg 7        ‖ nonce[8] ‖ cookie[16]  "prove you receive here"
//   echo      C → S  msg 8        ‖ cookie[16]
//
// tag = SHA-256("qeli udp cookie marker v1" ‖ nonce)[0..8]. The marker rides msg 3
// because every 0.7.16 receiver drops junk for free at every stage (before its
// new-session limit and its reassembler); random junk is a marker with odds 2^-64. The
// challenge repeats the client's nonce so that a client takes only challenges that saw
// its marker. The cookie itself is the server's business (server/cookie_jar.h): a MAC
// of the source address the server can recompute, so it keeps nothing per challenge.
#pragma once

#include <array>
#include <cstdint>

#include "base/bytes.h"
#include "base/result.h"
#include "wire/limits.h"
#include "wire/udp_frag.h"

namespace qeli::wire {

using Cookie = std::array<std::uint8_t, kCookieSize>;
using CookieNonce = std::array<std::uint8_t, kCookieNonceSize>;

struct CookieChallenge {
  CookieNonce nonce{};
  Cookie cookie{};
};

/// The marker: a junk fragment (msg 3) of kFragHeaderSize + 16 bytes.
Bytes build_cookie_marker(const CookieNonce& nonce);
/// The nonce of a marker; kBadCookie for any other datagram (other junk included).
Result<CookieNonce, FragError> parse_cookie_marker(ByteSpan datagram);

/// msg 7: header ‖ nonce ‖ cookie (30 bytes).
Bytes build_cookie_challenge(const CookieChallenge& c);
/// kBadCookie unless msg 7, idx 0, count 1 and a 24-byte chunk.
Result<CookieChallenge, FragError> parse_cookie_challenge(ByteSpan datagram);

/// msg 8: header ‖ cookie (22 bytes).
Bytes build_cookie_echo(const Cookie& c);
/// kBadCookie unless msg 8, idx 0, count 1 and a 16-byte chunk.
Result<Cookie, FragError> parse_cookie_echo(ByteSpan datagram);

}  // namespace qeli::wire
