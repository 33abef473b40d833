// The endpoint's HTTP answers (metrics/http_answer.h): 200 with the exposition's
// Content-Type for GET /metrics, 404 elsewhere, 405 for other methods, 400 for what is not
// a request line, and where a request head ends (bounded).
#include "metrics/http_answer.h"

#include <gtest/gtest.h>

namespace qeli::metrics {
namespace {

std::string ask(const std::string& head, int* renders = nullptr) {
  return answer(head, [&](std::string& body, std::string&) {
    if (renders != nullptr) ++*renders;
    body = "qeli_build_info{version=\"1\"} 1\n";
    return true;
  });
}

TEST(HttpAnswer, GetMetricsIsTheExposition) {
  const std::string r = ask("GET /metrics HTTP/1.1\r\nHost: x\r\nAccept: */*\r\n\r\n");
  EXPECT_TRUE(r.starts_with("HTTP/1.1 200 OK\r\n")) << r;
  EXPECT_NE(r.find("\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n"),
            std::string::npos);
  EXPECT_NE(r.find("\r\nConnection: close\r\n"), std::string::npos);
  EXPECT_TRUE(r.ends_with("\r\n\r\nqeli_build_info{version=\"1\"} 1\n")) << r;
  EXPECT_NE(r.find("Content-Length: 31\r\n"), std::string::npos) << r;
  // A query string is ignored; HEAD gets the headers only.
  EXPECT_TRUE(ask("GET /metrics?x=1 HTTP/1.0\r\n\r\n").starts_with("HTTP/1.1 200 "));
  const std::string h = ask("HEAD /metrics HTTP/1.1\r\n\r\n");
  EXPECT_TRUE(h.starts_with("HTTP/1.1 200 ")) << h;
  EXPECT_TRUE(h.ends_with("\r\n\r\n")) << h;
}

TEST(HttpAnswer, OtherPathsAre404AndOtherMethods405) {
  int renders = 0;
  EXPECT_TRUE(ask("GET / HTTP/1.1\r\n\r\n", &renders).starts_with("HTTP/1.1 404 "));
  EXPECT_TRUE(ask("GET /metrics/ HTTP/1.1\r\n\r\n", &renders).starts_with("HTTP/1.1 404 "));
  EXPECT_TRUE(ask("GET /metricsx HTTP/1.1\r\n\r\n", &renders).starts_with("HTTP/1.1 404 "));
  const std::string post = ask("POST /metrics HTTP/1.1\r\nContent-Length: 3\r\n\r\n", &renders);
  EXPECT_TRUE(post.starts_with("HTTP/1.1 405 ")) << post;
  EXPECT_NE(post.find("\r\nAllow: GET, HEAD\r\n"), std::string::npos);
  EXPECT_TRUE(ask("DELETE /metrics HTTP/1.1\r\n\r\n", &renders).starts_with("HTTP/1.1 405 "));
  EXPECT_EQ(renders, 0) << "nothing but GET/HEAD /metrics renders the page";
}

TEST(HttpAnswer, MalformedRequestLinesAre400) {
  for (const char* bad :
       {"GET /metrics\r\n\r\n", "GET  /metrics HTTP/1.1\r\n\r\n", "GET metrics HTTP/1.1\r\n\r\n",
        "GET /metrics HTTP/2\r\n\r\n", "G(T /metrics HTTP/1.1\r\n\r\n",
        "GET /met\x01rics HTTP/1.1\r\n\r\n", "\r\n\r\n", "GET * HTTP/1.1\r\n\r\n"}) {
    EXPECT_TRUE(ask(bad).starts_with("HTTP/1.1 400 ")) << bad;
  }
}

TEST(HttpAnswer, RenderFailureIs503) {
  const std::string r = answer("GET /metrics HTTP/1.1\r\n\r\n", [](std::string&, std::string& e) {
    e = "stats: unavailable";
    return false;
  });
  EXPECT_TRUE(r.starts_with("HTTP/1.1 503 ")) << r;
  EXPECT_TRUE(r.ends_with("stats: unavailable\n"));
}

TEST(HttpAnswer, HeadScanIsBounded) {
  EXPECT_EQ(scan_head("GET /metrics HTTP/1.1\r\nHost: x\r\n"), HeadScan::kIncomplete);
  EXPECT_EQ(scan_head("GET /metrics HTTP/1.1\r\n\r\n"), HeadScan::kComplete);
  EXPECT_EQ(scan_head("GET /metrics HTTP/1.1\n\n"), HeadScan::kComplete);
  const std::string big = "GET /metrics HTTP/1.1\r\nX: " + std::string(kMaxRequestHead, 'a');
  EXPECT_EQ(scan_head(big), HeadScan::kTooLarge);
  EXPECT_EQ(scan_head(big + "\r\n\r\n"), HeadScan::kTooLarge);
}

}  // namespace
}  // namespace qeli::metrics
