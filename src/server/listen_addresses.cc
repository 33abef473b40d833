#include "server/listen_addresses.h"

namespace qeli::server {

Result<std::vector<transport::SockAddr>, std::string> listen_addresses(
    const config::ProfileConfig& p) {
  std::vector<transport::SockAddr> out;
  auto add = [&out](const std::string& host, std::uint16_t port,
                    const char* key) -> Status<std::string> {
    const auto a = transport::SockAddr::parse_ip(host, port);
    if (!a) return fail(std::string(key) + " `" + host + "` is not a numeric IPv4 or IPv6 address");
    for (const auto& e : out) {
      if (e == *a) return fail(std::string(key) + " " + a->to_string() + " is listed twice");
    }
    out.push_back(*a);
    return {};
  };
  if (auto st = add(p.bind_address, p.bind_port, "bind.address"); !st.ok()) return fail(st.error());
  for (const auto& l : p.listen) {
    if (auto st = add(l.host, l.port, "listen"); !st.ok()) return fail(st.error());
  }
  return out;
}

std::string describe_listeners(const std::vector<transport::SockAddr>& addrs,
                               std::uint16_t first_port) {
  std::string s;
  for (std::size_t i = 0; i < addrs.size(); ++i) {
    if (i != 0) s += ", ";
    s += (i == 0 ? addrs[i].with_port(first_port) : addrs[i]).to_string();
  }
  return s;
}

}  // namespace qeli::server
