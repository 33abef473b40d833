// FdTun: a TUN fd someone else opened (a phone's VPN service hands one over) adopted as
// a tunio::TunDevice: plain packets, no vnet header, super-packets split on write. A
// datagram socket pair stands in for the TUN fd (one packet per read/write, as a TUN).
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "fakes/packet_builder.h"
#include "tunio/offload_validate.h"
#include "tunio/tun_device.h"

namespace qeli::tunio {
namespace {

TEST(FdTun, ReadsAndWritesPlainPacketsAndSplitsSuperPackets) {
  int sv[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv), 0);
  TunConfig c;
  c.name = "adopted0";
  c.mtu = 1400;
  c.log = [](std::string_view) {};
  auto tun = FdTun::adopt(sv[0], c);
  ASSERT_TRUE(tun.ok());
  TunDevice& dev = *tun;
  EXPECT_FALSE(tun->tun().capabilities().vnet_hdr);

  // The "kernel" routes two packets into the tunnel.
  const test::PacketBytes a = test::udp4(100, 1), b = test::udp4(1200, 2);
  ASSERT_EQ(::write(sv[1], a.data(), a.size()), static_cast<ssize_t>(a.size()));
  ASSERT_EQ(::write(sv[1], b.data(), b.size()), static_cast<ssize_t>(b.size()));
  PacketBatch in(8, 1500);
  auto r = dev.read_batch(in);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(in.size(), 2U);
  EXPECT_EQ(test::PacketBytes(in.packet(0).begin(), in.packet(0).end()), a);
  EXPECT_EQ(test::PacketBytes(in.packet(1).begin(), in.packet(1).end()), b);
  in.clear();
  EXPECT_EQ(dev.read_batch(in).error(), TunError::would_block);

  // A super-packet from the tunnel: the fd takes no vnet header, so it is split.
  test::PacketSpec s;
  s.tcp_options = {1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2};
  s.payload = 5 * 1308;
  s.partial_csum = true;
  const test::PacketBytes super = test::build_packet(s);
  auto meta = validate_offload({1, 1, 52, 1308, 20, 16}, super);
  ASSERT_TRUE(meta.ok());
  PacketBatch out(4, 65535);
  ASSERT_TRUE(out.push(super, *meta));
  auto w = dev.write_batch(out);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->logical_written, 5U);
  for (int i = 0; i < 5; ++i) {
    std::uint8_t buf[2000];
    const ssize_t n = ::recv(sv[1], buf, sizeof buf, MSG_DONTWAIT);
    ASSERT_EQ(n, 1360) << "segment " << i;
    EXPECT_TRUE(test::ref_checksums_ok(buf, static_cast<std::size_t>(n)));
  }
  ::close(sv[1]);
}

TEST(FdTun, RefusesNoFd) { EXPECT_FALSE(FdTun::adopt(-1, TunConfig{}).ok()); }

}  // namespace
}  // namespace qeli::tunio
