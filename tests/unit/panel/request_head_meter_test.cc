// The request head's bounds, byte by byte: a table of heads and what each gets, the same
// head fed in every split (one byte at a time, in two pieces at every point), and the
// meter's state across a refusal and a restart.
#include "panel/request_head_meter.h"

#include <gtest/gtest.h>

#include <string>

namespace qeli::panel {
namespace {

using V = RequestHeadMeter::Verdict;

std::string fields(std::size_t n) {
  std::string s;
  for (std::size_t i = 0; i < n; ++i) s += "X-F" + std::to_string(i) + ": v\r\n";
  return s;
}

// The verdict for `head` fed whole, and the head's length when it ends.
std::pair<V, std::size_t> whole(const std::string& head) {
  RequestHeadMeter m;
  std::size_t used = 0;
  const V v = m.feed(head, &used);
  return {v, used};
}

TEST(RequestHeadMeter, EachHeadGetsItsVerdict) {
  const std::string get = "GET / HTTP/1.1\r\n";
  const struct {
    const char* what;
    std::string head;
    V verdict;
  } rows[] = {
      {"a minimal head", get + "\r\n", V::kDone},
      {"fields", get + "Host: x\r\nCookie: a=b\r\n\r\n", V::kDone},
      {"no end yet", get + "Host: x\r\n", V::kMore},
      {"a bare LF line is a line, not the end", get + "\n", V::kMore},
      {"a leading empty line is not the end", "\r\n", V::kMore},
      {"64 fields", get + fields(kMaxHeaderFields) + "\r\n", V::kDone},
      {"65 fields", get + fields(kMaxHeaderFields + 1) + "\r\n", V::kTooManyFields},
      {"a line of the bound with its CRLF",
       get + "X: " + std::string(kMaxHeadLine - 5, 'a') + "\r\n\r\n", V::kDone},
      {"a byte more", get + "X: " + std::string(kMaxHeadLine - 4, 'a') + "\r\n\r\n",
       V::kLineTooLong},
      {"a line that never ends", get + "X: " + std::string(1 << 20, 'a'), V::kLineTooLong},
      {"a request line too long", "GET /" + std::string(kMaxHeadLine, 'a'), V::kLineTooLong},
      {"lines each in bounds, too much in all",
       get + std::string(5, 'x') + "\r\n" +
           [] {
             std::string s;
             for (int i = 0; i < 5; ++i)
               s += "X" + std::to_string(i) + ": " + std::string(8000, 'a') + "\r\n";
             return s;
           }() +
           "\r\n",
       V::kTooLarge},
  };
  for (const auto& r : rows) {
    SCOPED_TRACE(r.what);
    const auto [v, used] = whole(r.head);
    EXPECT_EQ(v, r.verdict);
    if (v == V::kDone) {
      EXPECT_EQ(used, r.head.size());
    }
  }
}

TEST(RequestHeadMeter, TheBodyAfterTheHeadIsNotCountedAndEverySplitAgrees) {
  const std::string head = "POST /x HTTP/1.1\r\nContent-Length: 5\r\n\r\n";
  const auto [v, used] = whole(head + "hello");
  EXPECT_EQ(v, V::kDone);
  EXPECT_EQ(used, head.size());
  for (std::size_t cut = 0; cut <= head.size(); ++cut) {
    RequestHeadMeter m;
    std::size_t u1 = 0, u2 = 0;
    const V first = m.feed(std::string_view(head).substr(0, cut), &u1);
    if (cut == head.size()) {
      EXPECT_EQ(first, V::kDone);
      continue;
    }
    EXPECT_EQ(first, V::kMore) << cut;
    EXPECT_EQ(m.feed(std::string_view(head).substr(cut), &u2), V::kDone) << cut;
    EXPECT_EQ(u1 + u2, head.size()) << cut;
  }
  RequestHeadMeter bytewise;
  std::size_t u = 0;
  for (std::size_t i = 0; i + 1 < head.size(); ++i) {
    ASSERT_EQ(bytewise.feed(head.substr(i, 1), &u), V::kMore) << i;
  }
  EXPECT_EQ(bytewise.feed(head.substr(head.size() - 1), &u), V::kDone);
  EXPECT_EQ(bytewise.size(), head.size());
}

TEST(RequestHeadMeter, ARefusalStaysAndStartBeginsTheNextHead) {
  RequestHeadMeter m;
  std::size_t used = 0;
  EXPECT_EQ(m.feed("GET / HTTP/1.1\r\n" + fields(kMaxHeaderFields + 1), &used), V::kTooManyFields);
  EXPECT_EQ(m.feed("\r\n", &used), V::kTooManyFields);
  EXPECT_EQ(used, 0U);
  m.start();
  EXPECT_EQ(m.feed("GET / HTTP/1.1\r\n\r\n", &used), V::kDone);
  m.start();
  EXPECT_EQ(m.size(), 0U);
  EXPECT_EQ(m.feed("GET / HTTP/1.1\r\nHost: a\r\n", &used), V::kMore);
}

}  // namespace
}  // namespace qeli::panel
