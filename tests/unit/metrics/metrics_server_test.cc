// MetricsServer over a real loopback socket: a scrape gets the page, anything else its
// status, a request head over the bound is refused, and stop() returns with clients still
// connected.
#include "metrics/metrics_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "metrics/http_answer.h"

namespace qeli::metrics {
namespace {

constexpr std::uint32_t kLoopback = 0x7f000001;

int connect_to(std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(port);
  sa.sin_addr.s_addr = htonl(kLoopback);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) != 0) {
    ::close(fd);
    return -1;
  }
  timeval tv{3, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  return fd;
}

std::string exchange(std::uint16_t port, const std::string& request) {
  const int fd = connect_to(port);
  if (fd < 0) return "connect failed";
  ::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = ::recv(fd, buf, sizeof(buf), 0)) > 0;) out.append(buf, n);
  ::close(fd);
  return out;
}

TEST(MetricsServer, ServesTheScrapeAndRefusesTheRest) {
  MetricsServer s;
  ASSERT_TRUE(s.start(kLoopback, 0, [](std::string& body, std::string&) {
                 body = "qeli_up 1\n";
                 return true;
               }).ok());
  ASSERT_NE(s.port(), 0);
  const std::string ok = exchange(s.port(), "GET /metrics HTTP/1.1\r\nHost: t\r\n\r\n");
  EXPECT_TRUE(ok.starts_with("HTTP/1.1 200 OK\r\n")) << ok;
  EXPECT_TRUE(ok.ends_with("\r\n\r\nqeli_up 1\n")) << ok;
  EXPECT_TRUE(exchange(s.port(), "GET /x HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 404 "));
  EXPECT_TRUE(exchange(s.port(), "PUT /metrics HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 405 "));
  const std::string big =
      "GET /metrics HTTP/1.1\r\nX: " + std::string(kMaxRequestHead + 10, 'a') + "\r\n\r\n";
  EXPECT_TRUE(exchange(s.port(), big).starts_with("HTTP/1.1 431 "));
  // Silent clients hold slots (up to the bound); stop() does not wait for them.
  std::vector<int> idle;
  for (std::size_t i = 0; i < kMaxConnections + 2; ++i) idle.push_back(connect_to(s.port()));
  s.stop();
  for (int fd : idle) {
    if (fd >= 0) ::close(fd);
  }
}

TEST(MetricsServer, APortInUseIsAnError) {
  MetricsServer a, b;
  ASSERT_TRUE(a.start(kLoopback, 0, [](std::string&, std::string&) { return true; }).ok());
  auto st = b.start(kLoopback, a.port(), [](std::string&, std::string&) { return true; });
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().find("127.0.0.1:" + std::to_string(a.port())), std::string::npos)
      << st.error();
}

}  // namespace
}  // namespace qeli::metrics
