// Checklist 29: property test. For random in-order TCP/UDP segment streams of several
// interleaved flows, split(coalesce(x)) == x byte for byte per flow; coalesce never
// emits more packets than it got and accounts for every input exactly once.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "fakes/packet_builder.h"
#include "tunio/offload_coalesce.h"
#include "tunio/offload_split.h"
#include "tunio/offload_validate.h"

namespace qeli::tunio {
namespace {

using test::PacketBytes;

TEST(OffloadRoundTrip, SplitOfCoalesceIsIdentity) {
  std::mt19937 rng(1234);
  // One split batch for the whole run: 256 x 64 KiB allocated per surviving packet made
  // this test take two minutes under AddressSanitizer.
  PacketBatch seg(256, 65535);
  for (int iter = 0; iter < 300; ++iter) {
    const int flows = 1 + static_cast<int>(rng() % 4);
    struct Flow {
      test::PacketSpec spec;
      std::vector<PacketBytes> sent;
    };
    std::vector<Flow> f(static_cast<std::size_t>(flows));
    for (int i = 0; i < flows; ++i) {
      auto& s = f[static_cast<std::size_t>(i)].spec;
      s.proto = rng() % 2 ? 6 : 17;
      if (rng() % 2) s = test::v6(s);
      s.sport = static_cast<std::uint16_t>(1000 + i);
      s.seq = static_cast<std::uint32_t>(rng());
      s.ip_id = static_cast<std::uint16_t>(rng());
    }
    const std::size_t n = 1 + rng() % 100;
    std::vector<PacketBytes> in;
    std::vector<int> owner;
    for (std::size_t k = 0; k < n; ++k) {
      const int i = static_cast<int>(rng() % static_cast<unsigned>(flows));
      auto& fl = f[static_cast<std::size_t>(i)];
      const std::size_t mss = fl.spec.proto == 6 ? 1000 : 800;
      fl.spec.payload = rng() % 8 == 0 ? 1 + rng() % mss : mss;
      fl.spec.flags = rng() % 16 == 0 ? (test::kAck | test::kPsh) : test::kAck;
      fl.spec.payload_seed = static_cast<std::uint8_t>(rng());
      auto p = test::build_packet(fl.spec);
      fl.sent.push_back(p);
      in.push_back(p);
      owner.push_back(i);
      fl.spec.seq += static_cast<std::uint32_t>(fl.spec.payload);
      ++fl.spec.ip_id;
    }
    PacketBatch b(n, 65535, 16);
    GroTable t(n);
    for (auto& p : in) ASSERT_TRUE(b.push(p));
    GroOptions opt;
    opt.udp = true;
    gro_coalesce(b, opt, t);
    std::size_t survivors = 0, logical = 0;
    std::map<int, std::vector<PacketBytes>> got;
    for (std::size_t i = 0; i < b.size(); ++i) {
      logical += b.logical(i);
      if (b.logical(i) == 0) continue;
      ++survivors;
      auto m = revalidate(b.meta(i), b.packet(i));
      ASSERT_TRUE(m.ok()) << to_string(m.error());
      seg.clear();
      ASSERT_TRUE(gso_split_all(b.packet(i), *m, seg).ok());
      EXPECT_EQ(seg.size(), b.logical(i));
      // Which flow? The surviving head keeps its ports.
      const std::size_t iph = (b.packet(i)[0] >> 4) == 4 ? 20 : 40;
      const int flow = test::rd16(&b.packet(i)[iph]) - 1000;
      for (std::size_t j = 0; j < seg.size(); ++j) {
        got[flow].emplace_back(seg.packet(j).begin(), seg.packet(j).end());
      }
    }
    EXPECT_LE(survivors, n);
    EXPECT_EQ(logical, n);
    for (int i = 0; i < flows; ++i) {
      ASSERT_EQ(got[i], f[static_cast<std::size_t>(i)].sent) << "iter " << iter << " flow " << i;
    }
  }
}

}  // namespace
}  // namespace qeli::tunio
