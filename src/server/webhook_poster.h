// WebhookPoster: one HTTP(S) POST to a webhook receiver, behind an interface so the
// dispatcher is tested without sockets and the HTTP library (cpp-httplib, whose Debian
// build has open CVEs) stays behind one wall: no redirects followed, a 5 s-class timeout,
// the answer's body capped (kMaxAnswer) and discarded.
//
// The SSRF guard (docs/OPERATIONS.md "Webhooks"): the host is resolved here, every address
// must be public unless `allow_private`, and the connection goes to the address that was
// checked (no second lookup a DNS rebinding could answer differently).
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "config/webhooks_section.h"

struct sockaddr;

namespace qeli::server {

struct PostResult {
  int status = 0;     ///< the HTTP status; 0 = no answer (the error says why)
  std::string error;  ///< empty on an answer
};

using HttpHeaders = std::vector<std::pair<std::string, std::string>>;

class WebhookPoster {
 public:
  virtual ~WebhookPoster() = default;
  virtual PostResult post(const config::HttpUrl& url, const HttpHeaders& headers,
                          const std::string& body, std::chrono::seconds timeout) = 0;
};

/// True for an address a webhook may reach without `allow_private`: not loopback,
/// private (RFC 1918, fc00::/7), link-local, CGNAT (100.64/10), unspecified, multicast,
/// reserved, documentation, benchmarking, or an IPv6 form of one (mapped, NAT64, 6to4).
bool is_public_address(const sockaddr* sa);

/// The cpp-httplib poster (HTTPS with the system's CA store and host name checks).
std::unique_ptr<WebhookPoster> make_http_poster(bool allow_private);

}  // namespace qeli::server
