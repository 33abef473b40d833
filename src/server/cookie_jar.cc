#include "server/cookie_jar.h"

#include <algorithm>
#include <array>
#include <cstring>

#include "base/endian.h"
#include "crypto/ct.h"
#include "crypto/sha256.h"

namespace qeli::server {

CookieJar::CookieJar(crypto::Rng& rng, Instant origin, Duration rotation)
    : rng_(rng), origin_(origin), rotation_(std::max(rotation, Duration(std::chrono::seconds(1)))) {
  rng_.fill(current_.span());
}

void CookieJar::advance(Instant now) {
  const std::uint64_t e =
      now <= origin_ ? 0 : static_cast<std::uint64_t>((now - origin_) / rotation_);
  if (e <= epoch_) return;
  if (e == epoch_ + 1) {
    previous_ = std::move(current_);  // the moved-from secret is wiped
    has_previous_ = true;
  } else {
    // Epochs went by without a cookie: none was issued under e − 1's secret.
    previous_ = crypto::Key32();
    has_previous_ = false;
  }
  current_ = crypto::Key32();
  rng_.fill(current_.span());
  epoch_ = e;
}

wire::Cookie CookieJar::mac(const crypto::Key32& secret, const transport::SockAddr& source,
                            std::uint64_t epoch) {
  // ip[16] ‖ port ‖ epoch: one fixed layout for both families.
  std::array<std::uint8_t, 16 + 2 + 8> in{};
  if (source.is_ipv4()) {
    in[10] = 0xFF;
    in[11] = 0xFF;
    store_be32(in.data() + 12, source.ipv4_host());
  } else if (source.is_ipv6()) {
    std::memcpy(in.data(), &source.v6.sin6_addr, 16);
  }
  store_be16(in.data() + 16, source.port());
  store_be64(in.data() + 18, epoch);
  const crypto::Digest32 d = crypto::hmac_sha256(secret.span(), in);
  wire::Cookie c{};
  std::copy_n(d.begin(), c.size(), c.begin());
  return c;
}

wire::Cookie CookieJar::make(const transport::SockAddr& source, Instant now) {
  advance(now);
  return mac(current_, source, epoch_);
}

bool CookieJar::check(const transport::SockAddr& source, const wire::Cookie& cookie, Instant now) {
  advance(now);
  if (crypto::ct_equal(mac(current_, source, epoch_), cookie)) return true;
  return has_previous_ && crypto::ct_equal(mac(previous_, source, epoch_ - 1), cookie);
}

}  // namespace qeli::server
