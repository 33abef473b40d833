#include "sys/link_netlink.h"

#include <linux/if_addr.h>
#include <net/if.h>
#include <netlink/addr.h>
#include <netlink/netlink.h>
#include <netlink/route/addr.h>
#include <netlink/route/link.h>

#include <string>

namespace qeli::sys {
namespace {

Error<NetlinkError> nl_err(NetlinkError code, std::string_view what, int nle) {
  return {code, std::string(what) + ": " + nl_geterror(nle)};
}

// RAII for libnl objects.
struct LinkRef {
  rtnl_link* p = nullptr;
  ~LinkRef() {
    if (p) rtnl_link_put(p);
  }
};

Result<rtnl_link*, Error<NetlinkError>> get_link(nl_sock* s, std::string_view name, LinkRef& ref) {
  const std::string n(name);
  const int r = rtnl_link_get_kernel(s, 0, n.c_str(), &ref.p);
  if (r < 0) return fail(nl_err(NetlinkError::no_such_link, "link " + n, r));
  return ref.p;
}

}  // namespace

void LinkNetlink::SockDeleter::operator()(nl_sock* s) const { nl_socket_free(s); }

LinkNetlink::LinkNetlink(LinkNetlink&&) noexcept = default;
LinkNetlink& LinkNetlink::operator=(LinkNetlink&&) noexcept = default;
LinkNetlink::~LinkNetlink() = default;

Result<LinkNetlink, Error<NetlinkError>> LinkNetlink::open() {
  nl_sock* s = nl_socket_alloc();
  if (!s) return fail(Error<NetlinkError>{NetlinkError::socket_failed, "nl_socket_alloc"});
  LinkNetlink l(s);
  const int r = nl_connect(s, NETLINK_ROUTE);
  if (r < 0) return fail(nl_err(NetlinkError::socket_failed, "nl_connect", r));
  return l;
}

NetlinkStatus LinkNetlink::set_link_up(std::string_view name) {
  LinkRef link, change;
  auto l = get_link(sock_.get(), name, link);
  if (!l) return fail(l.error());
  change.p = rtnl_link_alloc();
  rtnl_link_set_flags(change.p, IFF_UP);
  const int r = rtnl_link_change(sock_.get(), link.p, change.p, 0);
  if (r < 0) return fail(nl_err(NetlinkError::kernel_refused, "set up", r));
  return {};
}

NetlinkStatus LinkNetlink::set_mtu(std::string_view name, std::uint32_t mtu) {
  LinkRef link, change;
  auto l = get_link(sock_.get(), name, link);
  if (!l) return fail(l.error());
  change.p = rtnl_link_alloc();
  rtnl_link_set_mtu(change.p, mtu);
  const int r = rtnl_link_change(sock_.get(), link.p, change.p, 0);
  if (r < 0) return fail(nl_err(NetlinkError::kernel_refused, "set mtu", r));
  return {};
}

NetlinkStatus LinkNetlink::set_tx_queue_len(std::string_view name, std::uint32_t packets) {
  LinkRef link, change;
  auto l = get_link(sock_.get(), name, link);
  if (!l) return fail(l.error());
  change.p = rtnl_link_alloc();
  rtnl_link_set_txqlen(change.p, packets);
  const int r = rtnl_link_change(sock_.get(), link.p, change.p, 0);
  if (r < 0) return fail(nl_err(NetlinkError::kernel_refused, "set txqueuelen", r));
  return {};
}

NetlinkStatus LinkNetlink::add_address(std::string_view name, std::string_view cidr,
                                       bool skip_dad) {
  LinkRef link;
  auto l = get_link(sock_.get(), name, link);
  if (!l) return fail(l.error());
  nl_addr* local = nullptr;
  const std::string c(cidr);
  int r = nl_addr_parse(c.c_str(), AF_UNSPEC, &local);
  if (r < 0) return fail(nl_err(NetlinkError::bad_address, "address " + c, r));
  rtnl_addr* addr = rtnl_addr_alloc();
  rtnl_addr_set_ifindex(addr, rtnl_link_get_ifindex(link.p));
  if (skip_dad && nl_addr_get_family(local) == AF_INET6) rtnl_addr_set_flags(addr, IFA_F_NODAD);
  r = rtnl_addr_set_local(addr, local);
  if (r >= 0) r = rtnl_addr_add(sock_.get(), addr, 0);
  rtnl_addr_put(addr);
  nl_addr_put(local);
  if (r < 0) return fail(nl_err(NetlinkError::kernel_refused, "add address " + c, r));
  return {};
}

NetlinkStatus LinkNetlink::delete_link(std::string_view name) {
  LinkRef link;
  auto l = get_link(sock_.get(), name, link);
  if (!l) return fail(l.error());
  const int r = rtnl_link_delete(sock_.get(), link.p);
  if (r < 0) return fail(nl_err(NetlinkError::kernel_refused, "delete link", r));
  return {};
}

Result<bool, Error<NetlinkError>> LinkNetlink::is_link_running(std::string_view name) {
  LinkRef link;
  auto l = get_link(sock_.get(), name, link);
  if (!l) return fail(l.error());
  const unsigned flags = rtnl_link_get_flags(link.p);
  return (flags & IFF_UP) != 0 && (flags & IFF_RUNNING) != 0;
}

Result<std::uint32_t, Error<NetlinkError>> LinkNetlink::mtu(std::string_view name) {
  LinkRef link;
  auto l = get_link(sock_.get(), name, link);
  if (!l) return fail(l.error());
  return static_cast<std::uint32_t>(rtnl_link_get_mtu(link.p));
}

}  // namespace qeli::sys
