// A UdpSocket bound to 127.0.0.1 on an ephemeral port, with UDP GSO/GRO on or off and a
// silent log, for unit tests and benchmarks that move datagrams over loopback. Aborts
// if the socket cannot be opened (the test cannot run at all).
#pragma once

#include <cstdlib>
#include <string_view>

#include "transport/udp_socket.h"

namespace qeli::test {

inline transport::UdpSocket loopback_udp(bool offload) {
  transport::UdpOptions o;
  o.bind = transport::SockAddr::ipv4(0x7f000001, 0);
  o.tx_offload = offload;
  o.rx_offload = offload;
  o.log = [](std::string_view) {};
  auto s = transport::UdpSocket::open(o);
  if (!s.ok()) std::abort();
  return std::move(*s);
}

}  // namespace qeli::test
