#include "wire/udp_cookie.h"

#include <algorithm>
#include <string_view>

#include "crypto/ct.h"
#include "crypto/sha256.h"

namespace qeli::wire {
namespace {

constexpr std::string_view kMarkerLabel = "qeli udp cookie marker v1";

std::array<std::uint8_t, kCookieMarkerTagSize> marker_tag(ByteSpan nonce) {
  const auto* label = reinterpret_cast<const std::uint8_t*>(kMarkerLabel.data());
  const crypto::Digest32 h = crypto::sha256({ByteSpan(label, kMarkerLabel.size()), nonce});
  std::array<std::uint8_t, kCookieMarkerTagSize> tag{};
  std::copy_n(h.begin(), tag.size(), tag.begin());
  return tag;
}

// The one gate: msg id, a single fragment, and exactly `chunk` bytes after the header.
Result<ByteSpan, FragError> single(ByteSpan d, std::uint8_t msg_id, std::size_t chunk) {
  if (d.size() != kFragHeaderSize + chunk) return fail(FragError::kBadCookie);
  auto f = parse_fragment(d);
  if (!f.ok()) return fail(FragError::kBadCookie);
  if (f->msg_id != msg_id || f->index != 0 || f->count != 1) return fail(FragError::kBadCookie);
  return f->chunk;
}

Bytes build(std::uint8_t msg_id, ByteSpan a, ByteSpan b) {
  Bytes d(kFragHeaderSize + a.size() + b.size());
  write_fragment(msg_id, 0, 1, {}, d);
  std::copy(a.begin(), a.end(), d.begin() + kFragHeaderSize);
  std::copy(b.begin(), b.end(),
            d.begin() + static_cast<std::ptrdiff_t>(kFragHeaderSize + a.size()));
  return d;
}

}  // namespace

Bytes build_cookie_marker(const CookieNonce& nonce) {
  const auto tag = marker_tag(nonce);
  return build(udp_msg::kJunk, nonce, tag);
}

Result<CookieNonce, FragError> parse_cookie_marker(ByteSpan d) {
  auto chunk = single(d, udp_msg::kJunk, kCookieMarkerChunk);
  if (!chunk.ok()) return fail(chunk.error());
  CookieNonce nonce{};
  std::copy_n(chunk->begin(), nonce.size(), nonce.begin());
  if (!crypto::ct_equal(marker_tag(nonce), chunk->subspan(kCookieNonceSize))) {
    return fail(FragError::kBadCookie);  // ordinary junk of the marker's length
  }
  return nonce;
}

Bytes build_cookie_challenge(const CookieChallenge& c) {
  return build(udp_msg::kCookieChallenge, c.nonce, c.cookie);
}

Result<CookieChallenge, FragError> parse_cookie_challenge(ByteSpan d) {
  auto chunk = single(d, udp_msg::kCookieChallenge, kCookieChallengeChunk);
  if (!chunk.ok()) return fail(chunk.error());
  CookieChallenge c;
  std::copy_n(chunk->begin(), c.nonce.size(), c.nonce.begin());
  std::copy_n(chunk->begin() + kCookieNonceSize, c.cookie.size(), c.cookie.begin());
  return c;
}

Bytes build_cookie_echo(const Cookie& c) { return build(udp_msg::kCookieEcho, c, {}); }

Result<Cookie, FragError> parse_cookie_echo(ByteSpan d) {
  auto chunk = single(d, udp_msg::kCookieEcho, kCookieEchoChunk);
  if (!chunk.ok()) return fail(chunk.error());
  Cookie c{};
  std::copy_n(chunk->begin(), c.size(), c.begin());
  return c;
}

}  // namespace qeli::wire
