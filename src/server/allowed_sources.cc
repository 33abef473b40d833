#include "server/allowed_sources.h"

namespace qeli::server {

bool AllowedSources::allows(const transport::SockAddr& a) const {
  if (a.is_ipv4()) {
    const config::Ipv4Addr ip{a.ipv4_host()};
    for (const auto& n : v4_) {
      if (n.contains(ip)) return true;
    }
  } else if (a.is_ipv6()) {
    for (const auto& n : v6_) {
      if (n.contains(a.v6.sin6_addr.s6_addr)) return true;
    }
  }
  return false;
}

}  // namespace qeli::server
