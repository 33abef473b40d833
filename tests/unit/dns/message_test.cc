#include "dns/message.h"

#include <gtest/gtest.h>

#include "dns/limits.h"
#include "dns/writer.h"
#include "dns_builder.h"

namespace qeli::dns {
namespace {

using namespace test;

TEST(DnsMessage, ParsesAQueryWithEdns) {
  Msg m = query("WWW.example.com", rrtype::kAaaa, 0xBEEF);
  m.additional.push_back(opt_record(4096, true));
  const Bytes b = m.build();
  auto q = parse_query(b);
  ASSERT_TRUE(q.ok()) << to_string(q.error());
  EXPECT_EQ(q->header.id, 0xBEEF);
  EXPECT_EQ(q->question.name, std::string("\3www\7example\3com\0", 17));
  EXPECT_EQ(q->question.qtype, rrtype::kAaaa);
  EXPECT_EQ(q->question.qclass, kClassIn);
  EXPECT_TRUE(q->edns);
  EXPECT_TRUE(q->dnssec_ok);
  EXPECT_EQ(q->edns_udp_size, 4096);
  EXPECT_EQ(q->udp_limit(), kMaxUdpReply);
  EXPECT_EQ(q->question_end, 12 + 17 + 4U);
}

TEST(DnsMessage, UdpLimitWithoutEdnsIs512AndNeverBelow) {
  auto plain = parse_query(query("a.example").build());
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->udp_limit(), 512U);
  Msg m = query("a.example");
  m.additional.push_back(opt_record(100));
  auto small = parse_query(m.build());
  ASSERT_TRUE(small.ok());
  EXPECT_EQ(small->udp_limit(), 512U);
}

TEST(DnsMessage, RefusesBadQueries) {
  struct Case {
    const char* what;
    Bytes msg;
    ParseError want;
  };
  Bytes two_questions = query("a.example").build();
  two_questions[5] = 2;
  Bytes response = query("a.example").build();
  response[2] |= 0x80;
  Bytes notify = query("a.example").build();
  notify[2] |= 0x20;  // opcode 4
  Bytes with_answer = query("a.example").build();
  with_answer[7] = 1;
  Bytes trailing = query("a.example").build();
  trailing.push_back(0);
  Msg two_opts = query("a.example");
  two_opts.additional = {opt_record(1232), opt_record(1232)};
  Msg opt_in_authority = query("a.example");
  opt_in_authority.authority = {opt_record(1232)};
  Bytes big = query("a.example").build();
  big.resize(kMaxQuery + 1);
  const Case cases[] = {
      {"short", Bytes(11, 0), ParseError::kShort},
      {"two questions", two_questions, ParseError::kQuestionCount},
      {"a response", response, ParseError::kNotQuery},
      {"NOTIFY", notify, ParseError::kBadOpcode},
      {"answers in a query", with_answer, ParseError::kBadRecord},
      {"trailing bytes", trailing, ParseError::kTrailing},
      {"two OPT", two_opts.build(), ParseError::kBadRecord},
      {"OPT in authority", opt_in_authority.build(), ParseError::kBadRecord},
      {"too large", big, ParseError::kTooLarge},
  };
  for (const auto& c : cases) {
    auto q = parse_query(c.msg);
    ASSERT_FALSE(q.ok()) << c.what;
    EXPECT_EQ(q.error(), c.want) << c.what << ": " << to_string(q.error());
  }
}

TEST(DnsMessage, ParsesAResponseAndItsTtls) {
  Msg q = query("www.example.com");
  Msg r = answer_to(q);
  r.answer = {a_record(300), a_record(120, 8)};
  r.additional = {opt_record(1232)};
  const Bytes b = r.build();
  auto p = parse_response(b);
  ASSERT_TRUE(p.ok()) << to_string(p.error());
  EXPECT_EQ(p->ttl_offsets.size(), 2U);  // OPT's "TTL" is flags: not listed
  EXPECT_EQ(p->min_ttl, 120U);
  EXPECT_FALSE(p->has_soa);
  EXPECT_EQ(p->question.qtype, rrtype::kA);
}

TEST(DnsMessage, NegativeTtlIsTheSoaMinimumOrItsTtl) {
  Msg r = answer_to(query("nx.example.com"), 3);
  r.authority = {soa_record("example.com", 900, 60)};
  auto p = parse_response(r.build());
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p->has_soa);
  EXPECT_EQ(p->soa_negative_ttl, 60U);
  r.authority = {soa_record("example.com", 30, 600)};
  p = parse_response(r.build());
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->soa_negative_ttl, 30U);
}

TEST(DnsMessage, TtlWithTheTopBitSetCountsAsZero) {
  Msg r = answer_to(query("www.example.com"));
  r.answer = {a_record(0x80000000U)};
  auto p = parse_response(r.build());
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->min_ttl, 0U);
}

TEST(DnsMessage, RefusesBrokenResponses) {
  Msg r = answer_to(query("www.example.com"));
  r.answer = {a_record(300)};
  const Bytes good = r.build();
  Bytes rdlen_overrun = good;
  rdlen_overrun[rdlen_overrun.size() - 5] = 5;  // RDLENGTH 4 → 5: past the end
  Bytes count_overrun = good;
  count_overrun[7] = 2;  // ANCOUNT 2, one RR present
  Bytes not_response = good;
  not_response[2] &= 0x7F;
  Msg bad_soa = answer_to(query("nx.example.com"), 3);
  bad_soa.authority = {soa_record("example.com", 60, 60)};
  bad_soa.authority[0].rdata.pop_back();  // 19 fixed bytes instead of 20
  for (const auto& [what, msg] : std::initializer_list<std::pair<const char*, Bytes>>{
           {"rdlength overrun", rdlen_overrun},
           {"count overrun", count_overrun},
           {"not a response", not_response},
           {"short SOA", bad_soa.build()},
       }) {
    EXPECT_FALSE(parse_response(msg).ok()) << what;
  }
  // Every truncation of a good response is refused, never read past.
  for (std::size_t n = 0; n < good.size(); ++n) {
    EXPECT_FALSE(parse_response(ByteSpan(good.data(), n)).ok()) << n;
  }
}

TEST(DnsWriter, ErrorReplyEchoesIdQuestionAndRd) {
  const Bytes qb = query("Mixed.Example", rrtype::kA, 0x4242).build();
  auto q = parse_query(qb);
  ASSERT_TRUE(q.ok());
  const Bytes r = error_reply(qb, &*q, Rcode::kServFail);
  EXPECT_EQ(id_of(r), 0x4242);
  EXPECT_EQ(flags_of(r), 0x8000 | 0x0100 | 0x0080 | 2);
  EXPECT_EQ(count_at(r, 4), 1);
  EXPECT_EQ(Bytes(r.begin() + 12, r.end()), Bytes(qb.begin() + 12, qb.end()));
  const Bytes hdr_only = error_reply(qb, nullptr, Rcode::kFormErr);
  EXPECT_EQ(hdr_only.size(), 12U);
  EXPECT_EQ(count_at(hdr_only, 4), 0);
}

TEST(DnsWriter, BlockedAIs0000AndOtherTypesAreNodata) {
  const Bytes qa = query("ads.example", rrtype::kA).build();
  auto a = parse_query(qa);
  ASSERT_TRUE(a.ok());
  const Bytes ra = blocked_reply(qa, *a);
  auto pa = parse_response(ra);
  ASSERT_TRUE(pa.ok());
  EXPECT_EQ(pa->header.rcode(), Rcode::kNoError);
  EXPECT_EQ(pa->header.ancount, 1);
  EXPECT_EQ(Bytes(ra.end() - 4, ra.end()), Bytes(4, 0));
  EXPECT_EQ(pa->min_ttl, kBlockedTtl);
  const Bytes q6 = query("ads.example", rrtype::kAaaa).build();
  auto aaaa = parse_query(q6);
  ASSERT_TRUE(aaaa.ok());
  auto p6 = parse_response(blocked_reply(q6, *aaaa));
  ASSERT_TRUE(p6.ok());
  EXPECT_EQ(p6->header.rcode(), Rcode::kNoError);
  EXPECT_EQ(p6->header.ancount, 0);
}

TEST(DnsWriter, TruncatedReplyKeepsHeaderAndQuestion) {
  Msg r = answer_to(query("big.example", 16));
  r.answer = {txt_record(60, 2000)};
  const Bytes b = r.build();
  auto p = parse_response(b);
  ASSERT_TRUE(p.ok());
  const Bytes t = truncated_reply(b, p->question_end);
  auto pt = parse_response(t);
  ASSERT_TRUE(pt.ok());
  EXPECT_NE(pt->header.flags & flag::kTc, 0);
  EXPECT_EQ(pt->header.ancount, 0);
  EXPECT_EQ(pt->question, p->question);
}

TEST(DnsWriter, AgeTtlsNeverGoesBelowZero) {
  Msg r = answer_to(query("www.example.com"));
  r.answer = {a_record(100), a_record(10, 8)};
  Bytes b = r.build();
  auto p = parse_response(b);
  ASSERT_TRUE(p.ok());
  age_ttls(b, p->ttl_offsets, 30);
  auto aged = parse_response(b);
  ASSERT_TRUE(aged.ok());
  EXPECT_EQ(aged->min_ttl, 0U);
  EXPECT_EQ(b[p->ttl_offsets[0] + 3], 70);
}

}  // namespace
}  // namespace qeli::dns
