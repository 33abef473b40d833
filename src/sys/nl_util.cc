#include "sys/nl_util.h"

#include <netlink/errno.h>
#include <sys/socket.h>

#include <cstring>

namespace qeli::sys {

HostErrc errc_of(int nl_err) {
  switch (-nl_err) {
    case NLE_EXIST: return HostErrc::kExists;
    case NLE_OBJ_NOTFOUND:
    case NLE_NODEV: return HostErrc::kNotFound;
    case NLE_PERM: return HostErrc::kPermission;
    default: return HostErrc::kNetlink;
  }
}

Unexpected<HostError> nl_fail(int nl_err, const std::string& what) {
  return host_fail(errc_of(nl_err), what + ": " + nl_geterror(nl_err));
}

AddrPtr to_nl(const IpAddress& a, unsigned prefix_len) {
  AddrPtr p(nl_addr_build(a.af(), a.bytes.data(), a.size()));
  if (p) nl_addr_set_prefixlen(p.get(), static_cast<int>(prefix_len));
  return p;
}

std::optional<IpAddress> from_nl(nl_addr* a) {
  if (a == nullptr) return std::nullopt;
  IpAddress r;
  const int fam = nl_addr_get_family(a);
  const unsigned len = nl_addr_get_len(a);
  if (fam == AF_INET && len == 4) {
    r.family = IpFamily::kV4;
  } else if (fam == AF_INET6 && len == 16) {
    r.family = IpFamily::kV6;
  } else {
    return std::nullopt;
  }
  std::memcpy(r.bytes.data(), nl_addr_get_binary_addr(a), len);
  return r;
}

HostResult<nl_sock*> open_route_socket() {
  nl_sock* sk = nl_socket_alloc();
  if (sk == nullptr) return host_fail(HostErrc::kNetlink, "nl_socket_alloc failed");
  if (const int err = nl_connect(sk, NETLINK_ROUTE); err < 0) {
    nl_socket_free(sk);
    return nl_fail(err, "connect NETLINK_ROUTE");
  }
  return sk;
}

}  // namespace qeli::sys
