#include "sys/resolved_bus.h"

#include <net/if.h>
#include <systemd/sd-bus.h>

#include <cstring>
#include <memory>

#include "sys/names.h"

namespace qeli::sys {

namespace {

constexpr char kService[] = "org.freedesktop.resolve1";
constexpr char kPath[] = "/org/freedesktop/resolve1";
constexpr char kManager[] = "org.freedesktop.resolve1.Manager";
constexpr std::uint64_t kCallTimeoutUsec = 5'000'000;  // resolved answers in milliseconds

struct BusUnref {
  void operator()(sd_bus* b) const { sd_bus_flush_close_unref(b); }
};
struct MsgUnref {
  void operator()(sd_bus_message* m) const { sd_bus_message_unref(m); }
};
using Bus = std::unique_ptr<sd_bus, BusUnref>;
using Msg = std::unique_ptr<sd_bus_message, MsgUnref>;

HostError bus_error(const std::string& what, int rc, const sd_bus_error* e = nullptr) {
  std::string detail = what + ": ";
  if (e != nullptr && sd_bus_error_is_set(e)) {
    detail += std::string(e->name) + (e->message != nullptr ? std::string(": ") + e->message : "");
  } else {
    detail += std::strerror(-rc);
  }
  const bool denied = (e != nullptr && sd_bus_error_has_name(e, SD_BUS_ERROR_ACCESS_DENIED)) ||
                      rc == -EACCES || rc == -EPERM;
  return HostError{denied ? HostErrc::kPermission : HostErrc::kIo, detail};
}

HostResult<int> ifindex_of(const std::string& dev) {
  if (!is_valid_ifname(dev))
    return host_fail(HostErrc::kInvalidArgument, "bad interface '" + dev + "'");
  const unsigned idx = ::if_nametoindex(dev.c_str());
  if (idx == 0) return host_fail(HostErrc::kNotFound, "no interface " + dev);
  return static_cast<int>(idx);
}

HostResult<Bus> open_bus() {
  sd_bus* b = nullptr;
  if (const int rc = sd_bus_open_system(&b); rc < 0) return fail(bus_error("system bus", rc));
  return Bus(b);
}

HostResult<Msg> new_call(sd_bus* bus, const char* method, int ifindex) {
  sd_bus_message* m = nullptr;
  int rc = sd_bus_message_new_method_call(bus, &m, kService, kPath, kManager, method);
  if (rc < 0) return fail(bus_error(method, rc));
  Msg msg(m);
  if (rc = sd_bus_message_append(m, "i", ifindex); rc < 0) return fail(bus_error(method, rc));
  return msg;
}

HostStatus call(sd_bus* bus, const char* method, sd_bus_message* m) {
  sd_bus_error err = SD_BUS_ERROR_NULL;
  sd_bus_message* reply = nullptr;
  const int rc = sd_bus_call(bus, m, kCallTimeoutUsec, &err, &reply);
  sd_bus_message_unref(reply);
  if (rc < 0) {
    HostError e = bus_error(std::string(kManager) + "." + method, rc, &err);
    sd_bus_error_free(&err);
    return fail(std::move(e));
  }
  return {};
}

// Each helper builds one call; a negative sd-bus return at any append is a bug or OOM.
HostStatus set_link_dns(sd_bus* bus, const ResolvedLinkPlan& p) {
  auto m = new_call(bus, "SetLinkDNS", p.ifindex);
  if (!m) return fail(m.error());
  int rc = sd_bus_message_open_container(m->get(), 'a', "(iay)");
  for (const IpAddress& a : p.servers) {
    if (rc >= 0) rc = sd_bus_message_open_container(m->get(), 'r', "iay");
    if (rc >= 0) rc = sd_bus_message_append(m->get(), "i", a.af());
    if (rc >= 0) rc = sd_bus_message_append_array(m->get(), 'y', a.bytes.data(), a.size());
    if (rc >= 0) rc = sd_bus_message_close_container(m->get());
  }
  if (rc >= 0) rc = sd_bus_message_close_container(m->get());
  if (rc < 0) return fail(bus_error("SetLinkDNS", rc));
  return call(bus, "SetLinkDNS", m->get());
}

HostStatus set_link_domains(sd_bus* bus, const ResolvedLinkPlan& p) {
  auto m = new_call(bus, "SetLinkDomains", p.ifindex);
  if (!m) return fail(m.error());
  int rc = sd_bus_message_open_container(m->get(), 'a', "(sb)");
  for (const auto& [name, routing_only] : p.domains) {
    if (rc >= 0) rc = sd_bus_message_append(m->get(), "(sb)", name.c_str(), routing_only ? 1 : 0);
  }
  if (rc >= 0) rc = sd_bus_message_close_container(m->get());
  if (rc < 0) return fail(bus_error("SetLinkDomains", rc));
  return call(bus, "SetLinkDomains", m->get());
}

HostStatus set_link_default_route(sd_bus* bus, const ResolvedLinkPlan& p) {
  auto m = new_call(bus, "SetLinkDefaultRoute", p.ifindex);
  if (!m) return fail(m.error());
  if (const int rc = sd_bus_message_append(m->get(), "b", p.default_route ? 1 : 0); rc < 0) {
    return fail(bus_error("SetLinkDefaultRoute", rc));
  }
  return call(bus, "SetLinkDefaultRoute", m->get());
}

}  // namespace

HostResult<ResolvedLinkPlan> resolved_link_plan(int ifindex, const DnsSettings& dns,
                                                bool default_route) {
  if (ifindex <= 0) {
    return host_fail(HostErrc::kInvalidArgument, "bad ifindex " + std::to_string(ifindex));
  }
  // The same validation as the resolv.conf path (servers present, search domains sane);
  // the interface name only matters to that file's comment.
  if (auto check = render_resolv_conf(dns, "tun"); !check) return fail(check.error());
  ResolvedLinkPlan p;
  p.ifindex = ifindex;
  p.servers = dns.servers;
  // "~." = the root domain as a routing-only domain: every name is looked up on this
  // link, not only the names under its search domains (resolvectl domain IF '~.').
  if (default_route) p.domains.emplace_back(".", true);
  for (const std::string& d : dns.search) p.domains.emplace_back(d, false);
  p.default_route = default_route;
  return p;
}

HostStatus ResolvedBusLinkDns::apply(const std::string& dev, const DnsSettings& dns,
                                     bool default_route) {
  auto idx = ifindex_of(dev);
  if (!idx) return fail(idx.error());
  auto plan = resolved_link_plan(*idx, dns, default_route);
  if (!plan) return fail(plan.error());
  auto bus = open_bus();
  if (!bus) return fail(bus.error());
  if (auto st = set_link_dns(bus->get(), *plan); !st) return st;
  if (auto st = set_link_domains(bus->get(), *plan); !st) return st;
  return set_link_default_route(bus->get(), *plan);
}

HostStatus ResolvedBusLinkDns::revert(const std::string& dev) {
  auto idx = ifindex_of(dev);
  if (!idx) return fail(idx.error());
  auto bus = open_bus();
  if (!bus) return fail(bus.error());
  auto m = new_call(bus->get(), "RevertLink", *idx);
  if (!m) return fail(m.error());
  return call(bus->get(), "RevertLink", m->get());
}

}  // namespace qeli::sys
