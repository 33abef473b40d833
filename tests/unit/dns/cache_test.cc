#include "dns/cache.h"

#include <gtest/gtest.h>

#include "dns/limits.h"
#include "dns_builder.h"

namespace qeli::dns {
namespace {

using namespace test;
using std::chrono::seconds;

struct Stored {
  Bytes msg;
  Response parsed;
  std::string key;
};

Stored answer(const std::string& name, std::uint32_t ttl, std::uint8_t rcode = 0) {
  Msg r = answer_to(query(name), rcode);
  if (rcode == 0) r.answer = {a_record(ttl)};
  Stored s{r.build(), {}, {}};
  s.parsed = parse_response(s.msg).value();
  s.key = cache_key(s.parsed.question, false, false);
  return s;
}

const Instant t0{};

TEST(DnsCache, HitAgesTtlsAndExpires) {
  Cache c(10);
  auto s = answer("www.example.com", 100);
  ASSERT_TRUE(c.store(s.key, s.msg, s.parsed, t0));
  auto hit = c.lookup(s.key, t0 + seconds{40});
  ASSERT_TRUE(hit.has_value());
  auto p = parse_response(hit->message);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->min_ttl, 60U);
  EXPECT_EQ(p->header.id, 0);
  EXPECT_FALSE(c.lookup(s.key, t0 + seconds{100}).has_value());
  EXPECT_EQ(c.size(), 0U);
}

TEST(DnsCache, LifetimeRules) {
  EXPECT_EQ(cache_lifetime(answer("a.example", 100).parsed), seconds{100});
  EXPECT_EQ(cache_lifetime(answer("a.example", 86400).parsed), kMaxTtl);
  EXPECT_EQ(cache_lifetime(answer("a.example", 0).parsed), seconds{0});
  // NXDOMAIN without SOA: not cached; with one: the SOA's negative TTL, capped.
  EXPECT_EQ(cache_lifetime(answer("nx.example", 0, 3).parsed), seconds{0});
  Msg nx = answer_to(query("nx.example"), 3);
  nx.authority = {soa_record("example", 7200, 5000)};
  EXPECT_EQ(cache_lifetime(parse_response(nx.build()).value()), kMaxNegativeTtl);
  nx.authority = {soa_record("example", 30, 5000)};
  EXPECT_EQ(cache_lifetime(parse_response(nx.build()).value()), seconds{30});
  // NODATA (NOERROR, no answer) with an SOA is negative too.
  Msg nodata = answer_to(query("a.example", 28));
  nodata.authority = {soa_record("example", 300, 120)};
  EXPECT_EQ(cache_lifetime(parse_response(nodata.build()).value()), seconds{120});
  // SERVFAIL and truncated answers: never.
  EXPECT_EQ(cache_lifetime(answer("a.example", 0, 2).parsed), seconds{0});
  Msg tc = answer_to(query("a.example"));
  tc.flags |= 0x0200;
  tc.answer = {a_record(300)};
  EXPECT_EQ(cache_lifetime(parse_response(tc.build()).value()), seconds{0});
}

TEST(DnsCache, EvictsTheLeastRecentlyUsed) {
  Cache c(2);
  auto a = answer("a.example", 300), b = answer("b.example", 300), d = answer("d.example", 300);
  c.store(a.key, a.msg, a.parsed, t0);
  c.store(b.key, b.msg, b.parsed, t0);
  ASSERT_TRUE(c.lookup(a.key, t0).has_value());  // a is now the most recent
  c.store(d.key, d.msg, d.parsed, t0);
  EXPECT_EQ(c.size(), 2U);
  EXPECT_TRUE(c.lookup(a.key, t0).has_value());
  EXPECT_FALSE(c.lookup(b.key, t0).has_value());
  EXPECT_TRUE(c.lookup(d.key, t0).has_value());
}

TEST(DnsCache, SizeZeroCachesNothingAndKeysSeparateDo) {
  Cache off(0);
  auto a = answer("a.example", 300);
  EXPECT_FALSE(off.store(a.key, a.msg, a.parsed, t0));
  Cache c(4);
  c.store(a.key, a.msg, a.parsed, t0);
  EXPECT_FALSE(c.lookup(cache_key(a.parsed.question, true, false), t0).has_value());
  EXPECT_FALSE(c.lookup(cache_key(a.parsed.question, false, true), t0).has_value());
}

TEST(DnsCache, BoundedUnderChurn) {
  Cache c(100);
  for (int i = 0; i < 1000; ++i) {
    auto s = answer("n" + std::to_string(i) + ".example", 300);
    c.store(s.key, s.msg, s.parsed, t0);
    ASSERT_LE(c.size(), 100U);
  }
}

}  // namespace
}  // namespace qeli::dns
