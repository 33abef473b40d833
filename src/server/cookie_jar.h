// CookieJar: a UDP worker's return-routability cookies (docs/PROTOCOL.md §11 "Return
// routability"; the messages are wire/udp_cookie.h). Stateless per source, like
// WireGuard's cookie reply (its paper §5.4.7) and QUIC's Retry token (RFC 9000 §8.1):
//
//   cookie = HMAC-SHA256(secret_e, ip[16] ‖ port u16 BE ‖ e u64 BE)[0..16]
//
// where e is the epoch, (now − origin) / kCookieRotation, ip an IPv4 address as
// ::ffff:a.b.c.d. Each epoch has its own random 32-byte secret, made when the epoch is
// first seen; a cookie of the current or the previous epoch is accepted (so one issued
// just before a rotation still works), an older one is not, since its secret is gone
// (wiped). Nothing is stored per challenged source: check() recomputes the MAC.
//
// Sans-I/O: the caller passes `now`; randomness comes from the Rng it gives.
// Threading: one worker thread owns it.
#pragma once

#include <cstdint>

#include "base/clock.h"
#include "crypto/random.h"
#include "crypto/secret_bytes.h"
#include "transport/sock_addr.h"
#include "wire/udp_cookie.h"

namespace qeli::server {

/// How long one secret makes cookies; it is accepted for one period more.
inline constexpr Duration kCookieRotation = std::chrono::minutes(2);

class CookieJar {
 public:
  /// `rng` must outlive the jar. Epoch 0 starts at `origin`.
  CookieJar(crypto::Rng& rng, Instant origin, Duration rotation = kCookieRotation);

  /// The cookie of `source` under the current epoch's secret.
  wire::Cookie make(const transport::SockAddr& source, Instant now);
  /// True iff `cookie` is `source`'s under the current or the previous epoch's secret
  /// (compared in constant time).
  bool check(const transport::SockAddr& source, const wire::Cookie& cookie, Instant now);

  std::uint64_t epoch() const { return epoch_; }

 private:
  void advance(Instant now);
  static wire::Cookie mac(const crypto::Key32& secret, const transport::SockAddr& source,
                          std::uint64_t epoch);

  crypto::Rng& rng_;
  Instant origin_;
  Duration rotation_;
  std::uint64_t epoch_ = 0;
  crypto::Key32 current_;
  crypto::Key32 previous_;
  bool has_previous_ = false;
};

}  // namespace qeli::server
