#include "sys/neighbor_proxy.h"

#include <linux/neighbour.h>
#include <net/if.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/route/addr.h>
#include <netlink/route/neighbour.h>
#include <sys/socket.h>

#include <cstring>
#include <utility>
#include <vector>

#include "sys/nl_util.h"

namespace qeli::sys {
namespace {

struct NeighPut {
  void operator()(rtnl_neigh* n) const { rtnl_neigh_put(n); }
};
using NeighPtr = std::unique_ptr<rtnl_neigh, NeighPut>;

}  // namespace

NeighborProxy::NeighborProxy(nl_sock* sock, std::string ifname, int ifindex)
    : sock_(sock), ifname_(std::move(ifname)), ifindex_(ifindex) {}
NeighborProxy::NeighborProxy(NeighborProxy&& o) noexcept
    : sock_(std::exchange(o.sock_, nullptr)), ifname_(std::move(o.ifname_)), ifindex_(o.ifindex_) {}
NeighborProxy& NeighborProxy::operator=(NeighborProxy&& o) noexcept {
  if (this != &o) {
    if (sock_ != nullptr) nl_socket_free(sock_);
    sock_ = std::exchange(o.sock_, nullptr);
    ifname_ = std::move(o.ifname_);
    ifindex_ = o.ifindex_;
  }
  return *this;
}
NeighborProxy::~NeighborProxy() {
  if (sock_ != nullptr) nl_socket_free(sock_);
}

HostResult<NeighborProxy> NeighborProxy::open(const std::string& ifname) {
  if (ifname.empty() || ifname.size() > 15) {
    return host_fail(HostErrc::kInvalidArgument, "bad interface name '" + ifname + "'");
  }
  auto sk = open_route_socket();
  if (!sk.ok()) return fail(sk.error());
  NeighborProxy p(*sk, ifname, 0);
  rtnl_link* raw = nullptr;
  if (const int err = rtnl_link_get_kernel(p.sock_, 0, ifname.c_str(), &raw); err < 0) {
    return nl_fail(err == -NLE_OBJ_NOTFOUND ? -NLE_NODEV : err, "interface " + ifname);
  }
  const LinkPtr link(raw);
  p.ifindex_ = rtnl_link_get_ifindex(link.get());
  return p;
}

HostStatus NeighborProxy::change(const IpAddress& addr, bool add) {
  if (addr.family != IpFamily::kV6) {
    return host_fail(HostErrc::kInvalidArgument, "an NDP proxy entry is for an IPv6 address");
  }
  NeighPtr n(rtnl_neigh_alloc());
  const AddrPtr dst = to_nl(addr, 128);
  if (!n || !dst) return host_fail(HostErrc::kNetlink, "out of memory");
  rtnl_neigh_set_ifindex(n.get(), ifindex_);
  rtnl_neigh_set_family(n.get(), AF_INET6);
  rtnl_neigh_set_flags(n.get(), NTF_PROXY);
  if (const int err = rtnl_neigh_set_dst(n.get(), dst.get()); err < 0) {
    return nl_fail(err, "proxy entry " + addr.to_string());
  }
  const int err = add ? rtnl_neigh_add(sock_, n.get(), NLM_F_CREATE | NLM_F_REPLACE)
                      : rtnl_neigh_delete(sock_, n.get(), 0);
  if (err < 0 && !(add == false && (err == -NLE_OBJ_NOTFOUND || err == -NLE_NOADDR))) {
    return nl_fail(err, std::string(add ? "add" : "delete") + " proxy entry " + addr.to_string() +
                            " dev " + ifname_);
  }
  return {};
}

HostStatus NeighborProxy::add(const IpAddress& addr) { return change(addr, true); }
HostStatus NeighborProxy::remove(const IpAddress& addr) { return change(addr, false); }

HostResult<std::size_t> NeighborProxy::flush(const IpPrefix& within) {
  // Proxy entries are not in the neighbour cache's dump by default: ask for them
  // (NTF_PROXY in the request's ndm_flags) and walk the answer.
  struct ndmsg req {};
  req.ndm_family = AF_INET6;
  req.ndm_flags = NTF_PROXY;
  req.ndm_ifindex = ifindex_;
  std::vector<IpAddress> stale;
  nl_msg* msg = nlmsg_alloc_simple(RTM_GETNEIGH, NLM_F_DUMP);
  if (msg == nullptr) return host_fail(HostErrc::kNetlink, "out of memory");
  if (nlmsg_append(msg, &req, sizeof req, NLMSG_ALIGNTO) < 0) {
    nlmsg_free(msg);
    return host_fail(HostErrc::kNetlink, "out of memory");
  }
  int err = nl_send_auto(sock_, msg);
  nlmsg_free(msg);
  if (err < 0) return nl_fail(err, "list proxy entries");
  auto on_msg = [](nl_msg* m, void* arg) -> int {
    auto& ctx = *static_cast<std::pair<std::vector<IpAddress>*, const NeighborProxy*>*>(arg);
    nlmsghdr* h = nlmsg_hdr(m);
    if (h->nlmsg_type != RTM_NEWNEIGH) return NL_OK;
    const auto* nd = static_cast<const ndmsg*>(nlmsg_data(h));
    if ((nd->ndm_flags & NTF_PROXY) == 0 || nd->ndm_family != AF_INET6 ||
        nd->ndm_ifindex != ctx.second->ifindex_) {
      return NL_OK;
    }
    nlattr* tb[NDA_MAX + 1] = {};
    if (nlmsg_parse(h, sizeof(ndmsg), tb, NDA_MAX, nullptr) < 0 || tb[NDA_DST] == nullptr ||
        nla_len(tb[NDA_DST]) != 16) {
      return NL_OK;
    }
    IpAddress a;
    a.family = IpFamily::kV6;
    std::memcpy(a.bytes.data(), nla_data(tb[NDA_DST]), 16);
    ctx.first->push_back(a);
    return NL_OK;
  };
  std::pair<std::vector<IpAddress>*, const NeighborProxy*> ctx{&stale, this};
  nl_cb* cb = nl_cb_alloc(NL_CB_DEFAULT);
  if (cb == nullptr) return host_fail(HostErrc::kNetlink, "out of memory");
  nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_msg, &ctx);
  err = nl_recvmsgs(sock_, cb);
  nl_cb_put(cb);
  if (err < 0) return nl_fail(err, "read proxy entries");
  std::size_t n = 0;
  for (const auto& a : stale) {
    if (!within.contains(a)) continue;
    if (remove(a).ok()) ++n;
  }
  return n;
}

HostResult<std::optional<std::string>> onlink_interface_for(const IpPrefix& pool,
                                                            const std::string& except) {
  auto sk = open_route_socket();
  if (!sk.ok()) return fail(sk.error());
  struct SockFree {
    void operator()(nl_sock* s) const { nl_socket_free(s); }
  };
  const std::unique_ptr<nl_sock, SockFree> sock(*sk);
  nl_cache* raw = nullptr;
  if (const int err = rtnl_addr_alloc_cache(sock.get(), &raw); err < 0) {
    return nl_fail(err, "list addresses");
  }
  const CachePtr addrs(raw);
  nl_cache* lraw = nullptr;
  if (const int err = rtnl_link_alloc_cache(sock.get(), AF_UNSPEC, &lraw); err < 0) {
    return nl_fail(err, "list links");
  }
  const CachePtr links(lraw);
  std::optional<std::string> best;
  int best_len = -1;
  for (nl_object* o = nl_cache_get_first(addrs.get()); o != nullptr; o = nl_cache_get_next(o)) {
    auto* a = reinterpret_cast<rtnl_addr*>(o);
    if (rtnl_addr_get_family(a) != AF_INET6 || rtnl_addr_get_scope(a) != RT_SCOPE_UNIVERSE) {
      continue;
    }
    const auto local = from_nl(rtnl_addr_get_local(a));
    const int len = rtnl_addr_get_prefixlen(a);
    if (!local || len <= 0 || len > pool.len || len <= best_len) continue;
    IpPrefix onlink;
    onlink.addr = *local;
    onlink.len = static_cast<std::uint8_t>(len);
    // The on-link network of the address: its host bits cleared.
    for (int bit = len; bit < 128; ++bit) {
      onlink.addr.bytes[static_cast<std::size_t>(bit / 8)] &=
          static_cast<std::uint8_t>(~(0x80u >> (bit % 8)));
    }
    if (!onlink.contains(pool.addr)) continue;
    char name[IFNAMSIZ] = {};
    if (rtnl_link_i2name(links.get(), rtnl_addr_get_ifindex(a), name, sizeof name) == nullptr) {
      continue;
    }
    if (except == name) continue;
    best = name;
    best_len = len;
  }
  return best;
}

std::string proxy_ndp_key(const std::string& ifname) {
  return "net.ipv6.conf." + ifname + ".proxy_ndp";
}

}  // namespace qeli::sys
