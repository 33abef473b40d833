// AUTH OK JSON (nlohmann, exceptions never thrown: parse(..., nullptr, false)). A parsed
// message re-serialises and re-parses to the same validated fields; the IPv6 extension
// keys (x_ip6, x_server_ip6, x_dns6) hold only what the parser promises.
#include <cstdlib>

#include "handshake/auth_ok.h"

using namespace qeli;
using namespace qeli::handshake;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto ok = parse_auth_ok(ByteSpan(data, size));
  if (!ok.ok()) return 0;
  if (!is_ipv4(ok->client_ip) || ok->prefix < 1 || ok->prefix > 32 || ok->max_streams < 1 ||
      ok->max_streams > 16) {
    std::abort();
  }
  auto again = parse_auth_ok(build_auth_ok(*ok));
  if (!again.ok() || again->client_ip != ok->client_ip ||
      again->routes.size() != ok->routes.size() || again->session_token != ok->session_token ||
      again->mtu != ok->mtu) {
    std::abort();
  }
  // IPv6 inside: both addresses or neither; the resolver only beside them, an address.
  if (ok->x_ip6.has_value() != ok->x_server_ip6.has_value() ||
      (ok->x_dns6 && (!ok->x_ip6 || !is_ipv6(*ok->x_dns6)))) {
    std::abort();
  }
  if (again->x_ip6 != ok->x_ip6 || again->x_server_ip6 != ok->x_server_ip6 ||
      again->x_dns6 != ok->x_dns6) {
    std::abort();
  }
  return 0;
}
