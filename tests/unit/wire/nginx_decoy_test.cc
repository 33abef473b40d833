// nginx's answers to requests that are not our upgrade, against what the real nginx 1.22
// of Debian 12 sent for the same requests (captured on loopback with `server_tokens off`
// and a site without the page; tests/e2e/obfs.sh compares against a live one too).
#include "wire/nginx_decoy.h"

#include <gtest/gtest.h>

#include "wire/http_head.h"

namespace qeli::wire {
namespace {

constexpr std::uint64_t kWhen = 1785834753;  // 2026-08-04 09:12:33 UTC

std::string page(std::string_view title) {
  return "<html>\r\n<head><title>" + std::string(title) +
         "</title></head>\r\n<body>\r\n<center><h1>" + std::string(title) +
         "</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n";
}

std::string answer(std::string_view status, std::size_t length, std::string_view connection) {
  return "HTTP/1.1 " + std::string(status) +
         "\r\nServer: nginx\r\nDate: Tue, 04 Aug 2026 09:12:33 GMT\r\nContent-Type: "
         "text/html\r\nContent-Length: " +
         std::to_string(length) + "\r\nConnection: " + std::string(connection) + "\r\n\r\n";
}

TEST(NginxDecoy, DateIsImfFixdate) {
  EXPECT_EQ(http_date(kWhen), "Tue, 04 Aug 2026 09:12:33 GMT");
  EXPECT_EQ(http_date(0), "Thu, 01 Jan 1970 00:00:00 GMT");
  EXPECT_EQ(http_date(951782400), "Tue, 29 Feb 2000 00:00:00 GMT");
}

TEST(NginxDecoy, The404PagesAreByteExact) {
  EXPECT_EQ(nginx_404(kWhen), answer("404 Not Found", 146, "close") + page("404 Not Found"));
  EXPECT_EQ(page("404 Not Found").size(), 146U);
  EXPECT_EQ(page("400 Bad Request").size(), 150U);
  EXPECT_EQ(page("505 HTTP Version Not Supported").size(), 180U);
}

struct Case {
  const char* name;
  std::string_view head;
  std::string expect;  // the whole answer
  bool keep_alive;
  std::uint64_t body = 0;
};

TEST(NginxDecoy, AnswersAsTheRealNginxDid) {
  const std::string p404 = page("404 Not Found");
  const Case cases[] = {
      {"GET, HTTP/1.1", "GET /nope HTTP/1.1\r\nHost: x\r\nUser-Agent: curl/7.88.1\r\n\r\n",
       answer("404 Not Found", 146, "keep-alive") + p404, true},
      {"Connection: close", "GET /nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
       answer("404 Not Found", 146, "close") + p404, false},
      {"HEAD", "HEAD /nope HTTP/1.1\r\nHost: x\r\n\r\n", answer("404 Not Found", 146, "keep-alive"),
       true},
      {"HTTP/1.0", "GET /nope HTTP/1.0\r\n\r\n", answer("404 Not Found", 146, "close") + p404,
       false},
      {"HTTP/1.0 keep-alive", "GET /nope HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
       answer("404 Not Found", 146, "keep-alive") + p404, true},
      {"POST with a body", "POST /nope HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n",
       answer("404 Not Found", 146, "keep-alive") + p404, true, 5},
      {"a WebSocket upgrade elsewhere",
       "GET /chat HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
       "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
       answer("404 Not Found", 146, "keep-alive") + p404, true},
      {"an unknown method", "FOO /nope HTTP/1.1\r\nHost: x\r\n\r\n",
       answer("405 Not Allowed", 150, "keep-alive") + page("405 Not Allowed"), true},
      {"HTTP/1.1 without Host", "GET /nope HTTP/1.1\r\n\r\n",
       answer("400 Bad Request", 150, "close") + page("400 Bad Request"), false},
      {"not a request line", "HELLO\r\n\r\n",
       answer("400 Bad Request", 150, "close") + page("400 Bad Request"), false},
      {"HTTP/2.0", "GET /nope HTTP/2.0\r\nHost: x\r\n\r\n",
       answer("505 HTTP Version Not Supported", 180, "close") +
           page("505 HTTP Version Not Supported"),
       false},
  };
  for (const auto& c : cases) {
    const DecoyAnswer a = nginx_answer(c.head, 1, kWhen);
    EXPECT_EQ(a.bytes, c.expect) << c.name;
    EXPECT_EQ(a.keep_alive, c.keep_alive) << c.name;
    EXPECT_EQ(a.body_bytes, c.body) << c.name;
  }
}

TEST(NginxDecoy, MalformedHeadsAreBadRequests) {
  for (const std::string_view head : {
           "get /x HTTP/1.1\r\nHost: x\r\n\r\n",                        // lower-case method
           "GET x HTTP/1.1\r\nHost: x\r\n\r\n",                         // not a path
           "GET /x HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",             // two hosts
           "GET /x HTTP/1.1\r\nHost: x\r\nno colon\r\n\r\n",            // a line without ':'
           "GET /x HTTP/1.1\r\nHost: x\r\nContent-Length: 5x\r\n\r\n",  // not a number
           "GET /x HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n",
           "GET /x HTTP/x.1\r\nHost: x\r\n\r\n",
           "GET /x HTTP/1.1234\r\nHost: x\r\n\r\n",
           "GET /x HTTP/1.1 extra\r\nHost: x\r\n\r\n",
       }) {
    const DecoyAnswer a = nginx_answer(head, 1, kWhen);
    EXPECT_EQ(a.status, 400) << head;
    EXPECT_FALSE(a.keep_alive) << head;
  }
}

TEST(NginxDecoy, SpacesBetweenThePartsAreTolerated) {
  EXPECT_EQ(nginx_answer("GET   /x  HTTP/1.1\r\nHost: x\r\n\r\n", 1, kWhen).status, 404);
}

TEST(NginxDecoy, KeepAliveEndsAtTheThousandthRequest) {
  const std::string_view head = "GET /nope HTTP/1.1\r\nHost: x\r\n\r\n";
  EXPECT_TRUE(nginx_answer(head, kNginxKeepaliveRequests - 1, kWhen).keep_alive);
  const DecoyAnswer last = nginx_answer(head, kNginxKeepaliveRequests, kWhen);
  EXPECT_FALSE(last.keep_alive);
  EXPECT_NE(last.bytes.find("\r\nConnection: close\r\n"), std::string::npos);
}

TEST(NginxDecoy, ChunkedBodiesAreFlagged) {
  const DecoyAnswer a =
      nginx_answer("POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n", 1, kWhen);
  EXPECT_EQ(a.status, 404);
  EXPECT_TRUE(a.chunked_body);
}

TEST(HttpHead, FieldsTokensAndCounts) {
  const std::string_view head =
      "GET http://a:1/ HTTP/1.1\r\nHost:  x \r\nConnection: keep-alive, Upgrade\r\nhost: y\r\n\r\n";
  EXPECT_EQ(first_line(head), "GET http://a:1/ HTTP/1.1");
  EXPECT_EQ(header_value(head, "HOST"), "x");
  EXPECT_EQ(header_count(head, "Host"), 2U);
  EXPECT_FALSE(header_value(head, "get http"));  // the request line is not a field
  EXPECT_TRUE(lists_token(*header_value(head, "connection"), "upgrade"));
  EXPECT_TRUE(lists_token(*header_value(head, "connection"), "Keep-Alive"));
  EXPECT_FALSE(lists_token(*header_value(head, "connection"), "close"));
  EXPECT_FALSE(header_value(head, "upgrade"));
}

}  // namespace
}  // namespace qeli::wire
