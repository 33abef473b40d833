#include "dns/tcp_framer.h"

#include <gtest/gtest.h>

namespace qeli::dns {
namespace {

TEST(DnsTcpFramer, SplitsPipelinedMessagesFedByteByByte) {
  Bytes stream = tcp_frame(Bytes{1, 2, 3});
  const Bytes second = tcp_frame(Bytes(300, 7));
  stream.insert(stream.end(), second.begin(), second.end());
  TcpDeframer d;
  std::vector<Bytes> got;
  for (std::uint8_t b : stream) {
    ASSERT_TRUE(d.feed(ByteSpan(&b, 1)));
    while (auto m = d.next()) got.push_back(*m);
  }
  ASSERT_EQ(got.size(), 2U);
  EXPECT_EQ(got[0], (Bytes{1, 2, 3}));
  EXPECT_EQ(got[1], Bytes(300, 7));
  EXPECT_FALSE(d.partial());
}

TEST(DnsTcpFramer, ZeroLengthIsAnErrorAndTheBufferIsBounded) {
  TcpDeframer d;
  const Bytes zero{0, 0, 1, 2};
  ASSERT_TRUE(d.feed(zero));
  EXPECT_FALSE(d.next().has_value());
  EXPECT_TRUE(d.bad());
  TcpDeframer full;
  const Bytes big(TcpDeframer::kCapacity, 0xFF);
  EXPECT_TRUE(full.feed(big));
  EXPECT_EQ(full.space(), 0U);
  const std::uint8_t one = 1;
  EXPECT_FALSE(full.feed(ByteSpan(&one, 1)));
}

}  // namespace
}  // namespace qeli::dns
