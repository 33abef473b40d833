#include "tunio/flow_hash.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

namespace qeli::tunio {
namespace {

std::vector<std::uint8_t> ipv4(std::uint8_t proto, std::uint32_t src, std::uint32_t dst,
                               std::uint16_t sport, std::uint16_t dport, std::uint16_t frag = 0,
                               std::size_t payload = 32) {
  std::vector<std::uint8_t> p(20 + payload, 0);
  p[0] = 0x45;
  p[6] = static_cast<std::uint8_t>(frag >> 8);
  p[7] = static_cast<std::uint8_t>(frag);
  p[9] = proto;
  for (int i = 0; i < 4; ++i) {
    p[12 + i] = static_cast<std::uint8_t>(src >> (24 - 8 * i));
    p[16 + i] = static_cast<std::uint8_t>(dst >> (24 - 8 * i));
  }
  if (payload >= 4) {
    p[20] = static_cast<std::uint8_t>(sport >> 8);
    p[21] = static_cast<std::uint8_t>(sport);
    p[22] = static_cast<std::uint8_t>(dport >> 8);
    p[23] = static_cast<std::uint8_t>(dport);
  }
  return p;
}

TEST(FlowHash, OneFlowOneValueWhateverThePayload) {
  auto a = ipv4(6, 0x0a000002, 0x0a000001, 40000, 5201);
  auto b = ipv4(6, 0x0a000002, 0x0a000001, 40000, 5201, 0, 1400);
  b[40] = 0xff;  // payload differs
  EXPECT_EQ(flow_hash(a), flow_hash(b));
}

TEST(FlowHash, PortsProtocolAndAddressesSeparateFlows) {
  const auto base = flow_hash(ipv4(6, 0x0a000002, 0x0a000001, 40000, 5201));
  EXPECT_NE(base, flow_hash(ipv4(6, 0x0a000002, 0x0a000001, 40001, 5201)));
  EXPECT_NE(base, flow_hash(ipv4(6, 0x0a000002, 0x0a000001, 40000, 5202)));
  EXPECT_NE(base, flow_hash(ipv4(17, 0x0a000002, 0x0a000001, 40000, 5201)));
  EXPECT_NE(base, flow_hash(ipv4(6, 0x0a000003, 0x0a000001, 40000, 5201)));
  EXPECT_NE(base, flow_hash(ipv4(6, 0x0a000002, 0x0a000009, 40000, 5201)));
}

TEST(FlowHash, FragmentsOfOneDatagramShareAStream) {
  // First fragment (MF), a middle one and the last: same hash, ports not used.
  const auto first = flow_hash(ipv4(17, 1, 2, 1000, 53, 0x2000));
  const auto middle = flow_hash(ipv4(17, 1, 2, 0xdead, 0xbeef, 0x2000 | 185));
  const auto last = flow_hash(ipv4(17, 1, 2, 0x1111, 0x2222, 370));
  EXPECT_EQ(first, middle);
  EXPECT_EQ(first, last);
  // DF alone is not a fragment: ports count.
  EXPECT_NE(flow_hash(ipv4(17, 1, 2, 1000, 53, 0x4000)),
            flow_hash(ipv4(17, 1, 2, 1001, 53, 0x4000)));
}

TEST(FlowHash, IcmpHasNoPorts) {
  // Bytes after the header of an ICMP packet (type, code, checksum) do not split it.
  EXPECT_EQ(flow_hash(ipv4(1, 1, 2, 0x0800, 0x1234)), flow_hash(ipv4(1, 1, 2, 0x0000, 0x4321)));
}

TEST(FlowHash, Ipv6UsesAddressesAndPorts) {
  std::vector<std::uint8_t> a(60, 0);
  a[0] = 0x60;
  a[6] = 6;
  a[8] = 0x20;
  a[39] = 1;
  a[40] = 0x9c;
  a[43] = 0x51;
  auto b = a;
  b[41] = 1;  // another source port
  auto c = a;
  c[59] = 7;  // payload only
  EXPECT_NE(flow_hash(a), flow_hash(b));
  EXPECT_EQ(flow_hash(a), flow_hash(c));
}

TEST(FlowHash, ShortAndOddInputsAreSafe) {
  EXPECT_EQ(flow_hash({}), flow_hash({}));
  std::vector<std::uint8_t> v4(19, 0x45);
  (void)flow_hash(v4);
  std::vector<std::uint8_t> bad_ihl(24, 0);
  bad_ihl[0] = 0x4f;  // IHL 60 > size
  (void)flow_hash(bad_ihl);
  std::vector<std::uint8_t> v6(39, 0x60);
  (void)flow_hash(v6);
  auto hdr_only = ipv4(6, 1, 2, 0, 0, 0, 0);
  (void)flow_hash(hdr_only);
  SUCCEED();
}

TEST(FlowHash, ManyFlowsSpreadOverFourStreams) {
  int per[4] = {};
  for (std::uint16_t port = 30000; port < 30400; ++port) {
    per[flow_hash(ipv4(6, 0x0a000002, 0x0a000001, port, 5201)) % 4]++;
  }
  for (int n : per) EXPECT_GT(n, 60);  // 100 expected each
}

}  // namespace
}  // namespace qeli::tunio
