// The panel's listener against real sockets on loopback: ordinary requests (keep-alive,
// bodies, the peer's address), and what it must not take — a header line that never ends,
// header fields without end, a head sent too slowly, more connections than workers and
// waiting room, a body announced too large — each refused with its status or closed, after
// reading no more than the bound (the client cannot push megabytes; the process does not
// grow). stop() ends idle keep-alive connections at once.
#include "panel/http_listener.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace qeli::panel {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

std::size_t rss_kib() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.starts_with("VmRSS:")) return std::stoul(line.substr(6));
  }
  return 0;
}

class ListenerTest : public ::testing::Test {
 protected:
  void start(ListenerOptions o = {}) {
    o.bind = "127.0.0.1";
    o.port = 0;
    auto l = HttpListener::open(
        o, [](const HttpRequest&) { return std::optional<HttpResponse>(); },
        [this](const HttpRequest& r) {
          ++handled_;
          HttpResponse out;
          out.content_type = "text/plain";
          out.body = r.method + " " + r.path + " body=" + std::to_string(r.body.size()) +
                     " from=" + r.remote_ip;
          return out;
        });
    ASSERT_TRUE(l.ok()) << l.error();
    listener_ = std::move(*l);
    serving_ = std::thread([this] { listener_->serve(); });
  }
  void TearDown() override {
    if (listener_) listener_->stop();
    if (serving_.joinable()) serving_.join();
    for (const int fd : fds_) ::close(fd);
  }

  int connect_to() {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(listener_->port());
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa), 0);
    fds_.push_back(fd);
    return fd;
  }

  // Reads what arrives within `ms` (until the peer closes, or `until` is in it).
  static std::string read_for(int fd, int ms, std::string_view until = {}) {
    std::string got;
    const auto end = Clock::now() + milliseconds(ms);
    for (;;) {
      const auto left = std::chrono::duration_cast<milliseconds>(end - Clock::now()).count();
      pollfd p{fd, POLLIN, 0};
      if (left <= 0 || ::poll(&p, 1, static_cast<int>(left)) <= 0) break;
      char buf[65536];
      const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0) break;
      got.append(buf, static_cast<std::size_t>(n));
      if (!until.empty() && got.find(until) != std::string::npos) break;
    }
    return got;
  }
  static void send_all(int fd, std::string_view s) {
    while (!s.empty()) {
      const ssize_t n = ::send(fd, s.data(), s.size(), MSG_NOSIGNAL);
      ASSERT_GT(n, 0);
      s.remove_prefix(static_cast<std::size_t>(n));
    }
  }

  struct Flood {
    std::size_t sent = 0;
    std::string answer;
  };
  // Sends `head`, then `filler` again and again (up to `max` bytes in all) while reading
  // what comes back: the server's answer, until it closes.
  Flood flood(const std::string& head, const std::string& filler, std::size_t max) {
    const int fd = connect_to();
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
    Flood f;
    std::string out = head;
    std::size_t at = 0;
    bool sending = true;
    const auto end = Clock::now() + std::chrono::seconds(20);
    while (Clock::now() < end) {
      pollfd p{fd, static_cast<short>(POLLIN | (sending ? POLLOUT : 0)), 0};
      if (::poll(&p, 1, 2000) <= 0) break;
      if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
        char buf[65536];
        const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
        if (n > 0) {
          f.answer.append(buf, static_cast<std::size_t>(n));
          continue;
        }
        if (n == 0 || errno != EAGAIN) break;
      }
      if (sending && (p.revents & POLLOUT)) {
        if (at == out.size()) {
          out = filler;
          at = 0;
        }
        const ssize_t n = ::send(fd, out.data() + at, out.size() - at, MSG_NOSIGNAL);
        if (n > 0) {
          at += static_cast<std::size_t>(n);
          f.sent += static_cast<std::size_t>(n);
        } else if (errno != EAGAIN) {
          sending = false;  // the server closed: read what it said
        }
        if (f.sent >= max) sending = false;
      }
    }
    return f;
  }

  std::unique_ptr<HttpListener> listener_;
  std::thread serving_;
  std::vector<int> fds_;
  std::atomic<int> handled_{0};
};

TEST_F(ListenerTest, AnswersRequestsOnOneKeptAliveConnection) {
  start();
  const int fd = connect_to();
  send_all(fd, "GET /a?x=1 HTTP/1.1\r\nHost: h\r\n\r\n");
  const std::string first = read_for(fd, 5000, "from=127.0.0.1");
  EXPECT_TRUE(first.starts_with("HTTP/1.1 200")) << first;
  EXPECT_NE(first.find("GET /a body=0 from=127.0.0.1"), std::string::npos) << first;
  send_all(fd, "POST /b HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello");
  const std::string second = read_for(fd, 5000, "from=");
  EXPECT_NE(second.find("POST /b body=5"), std::string::npos) << second;
  EXPECT_EQ(handled_.load(), 2);
  // A body announced beyond kMaxBody is refused before it is read, and the connection
  // ends (what follows on the wire is that body, not a request).
  send_all(fd, "POST /c HTTP/1.1\r\nHost: h\r\nContent-Length: 99999999\r\n\r\nxx");
  const std::string big = read_for(fd, 5000);
  EXPECT_TRUE(big.starts_with("HTTP/1.1 413")) << big;
  EXPECT_EQ(handled_.load(), 2);
}

TEST_F(ListenerTest, AHeaderLineThatNeverEndsIsRefusedAtItsBound) {
  start();
  const std::size_t before = rss_kib();
  // 64 MiB of one header line: the old listener held every byte of it (and answered
  // nothing while it came).
  const auto f = flood("GET / HTTP/1.1\r\nHost: h\r\nX-Big: ", std::string(65536, 'a'), 64u << 20);
  EXPECT_TRUE(f.answer.starts_with("HTTP/1.1 431")) << f.answer.substr(0, 200);
  EXPECT_LT(f.sent, 16u << 20) << "the server went on reading";
  EXPECT_LT(rss_kib(), before + 16 * 1024) << "the process grew";
  EXPECT_EQ(handled_.load(), 0);
}

TEST_F(ListenerTest, HeaderFieldsWithoutEndAreRefusedAfterTheBound) {
  start();
  const std::size_t before = rss_kib();
  std::string fields;
  for (int i = 0; i < 4096; ++i) fields += "X-F: " + std::to_string(i) + "\r\n";
  const auto f = flood("GET / HTTP/1.1\r\nHost: h\r\n", fields, 64u << 20);
  EXPECT_TRUE(f.answer.starts_with("HTTP/1.1 431")) << f.answer.substr(0, 200);
  EXPECT_LT(f.sent, 16u << 20);
  EXPECT_LT(rss_kib(), before + 16 * 1024);
  EXPECT_EQ(handled_.load(), 0);
  // 64 fields are still a request.
  std::string ok = "GET /ok HTTP/1.1\r\n";
  for (std::size_t i = 0; i < kMaxHeaderFields; ++i) ok += "X-" + std::to_string(i) + ": v\r\n";
  const int fd = connect_to();
  send_all(fd, ok + "\r\n");
  EXPECT_TRUE(read_for(fd, 5000, "from=").starts_with("HTTP/1.1 200"));
}

TEST_F(ListenerTest, AHeadSentTooSlowlyGets408) {
  ListenerOptions o;
  o.head_timeout = milliseconds(300);
  start(o);
  const int fd = connect_to();
  send_all(fd, "GET / HTTP/1.1\r\n");
  // A byte every 50 ms: each read is quick, the head as a whole is not.
  std::string answer;
  const auto t0 = Clock::now();
  for (int i = 0; i < 100 && answer.empty(); ++i) {
    if (::send(fd, "X", 1, MSG_NOSIGNAL) != 1) break;
    answer = read_for(fd, 50);
  }
  answer += read_for(fd, 1000);
  EXPECT_TRUE(answer.starts_with("HTTP/1.1 408"))
      << "[" << answer << "] " << (Clock::now() - t0).count();
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(3));
  EXPECT_EQ(handled_.load(), 0);
}

TEST_F(ListenerTest, ConnectionsBeyondTheWorkersAndTheWaitingRoomAreTurnedAway) {
  start();
  // Each of these holds a worker or a place in the waiting room: connected, silent.
  std::vector<int> idle;
  for (std::size_t i = 0; i < kWorkers + kMaxWaiting + 4; ++i) idle.push_back(connect_to());
  int turned_away = 0;
  for (const int fd : idle) {
    const std::string got = read_for(fd, 100);
    if (got.starts_with("HTTP/1.1 503")) ++turned_away;
  }
  EXPECT_GE(turned_away, 4);
  EXPECT_LE(turned_away, static_cast<int>(kMaxWaiting) + 4);
  // stop() ends the silent ones at once, not after their timeouts.
  const auto t0 = Clock::now();
  listener_->stop();
  serving_.join();
  EXPECT_LT(Clock::now() - t0, milliseconds(1000));
}

TEST_F(ListenerTest, StopEndsAnIdleKeptAliveConnectionAtOnce) {
  start();
  const int fd = connect_to();
  send_all(fd, "GET / HTTP/1.1\r\nHost: h\r\n\r\n");
  ASSERT_TRUE(read_for(fd, 5000, "from=").starts_with("HTTP/1.1 200"));
  // The connection now waits for its next request (up to kIoTimeoutSecs).
  const auto t0 = Clock::now();
  listener_->stop();
  serving_.join();
  EXPECT_LT(Clock::now() - t0, milliseconds(1000));
  EXPECT_EQ(read_for(fd, 1000), "");  // closed
}

}  // namespace
}  // namespace qeli::panel
