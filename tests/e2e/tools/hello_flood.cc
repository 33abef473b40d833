// hello_flood — a flood of half-open UDP handshakes for the e2e defences test
// (tests/e2e/udp_defences.sh). Sends COUNT real first flights (a fresh
// UdpClientHandshake each: a ClientHello padded to ≥ 1200 bytes in 2 fragments, as a
// real client's) to SERVER:PORT, each from its own source address: source IP i % k of
// the k given, source port 20000 + i / k. Never reads an answer. Paced at RATE hellos
// per second so the run is bounded in time (COUNT / RATE seconds).
// Usage: hello_flood SERVER_IP PORT COUNT RATE SRC_IP...
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "crypto/random.h"
#include "handshake/udp_client_handshake.h"

namespace {

bool parse_ip(const char* s, in_addr& out) { return ::inet_pton(AF_INET, s, &out) == 1; }

}  // namespace

int main(int argc, char** argv) {
  using namespace qeli;
  if (argc < 6) {
    std::fprintf(stderr, "usage: %s SERVER_IP PORT COUNT RATE SRC_IP...\n", argv[0]);
    return 2;
  }
  in_addr server{};
  if (!parse_ip(argv[1], server)) return 2;
  const long port = std::strtol(argv[2], nullptr, 10);
  const long count = std::strtol(argv[3], nullptr, 10);
  const long rate = std::strtol(argv[4], nullptr, 10);
  std::vector<in_addr> sources;
  for (int i = 5; i < argc; ++i) {
    in_addr a{};
    if (!parse_ip(argv[i], a)) return 2;
    sources.push_back(a);
  }
  const auto k = static_cast<long>(sources.size());
  if (port <= 0 || port > 65535 || count <= 0 || rate <= 0 || 20000 + count / k > 65535) {
    std::fprintf(stderr, "hello_flood: bad arguments\n");
    return 2;
  }
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_addr = server;
  to.sin_port = htons(static_cast<std::uint16_t>(port));

  handshake::UdpClientConfig cfg;
  cfg.inner.mode = handshake::Mode::kFakeTls;
  cfg.inner.bind_static = false;
  cfg.inner.user = "flood";
  cfg.inner.password = "flood";
  cfg.inner.sni = {wire::Sni::Kind::kHost, "www.example.com"};
  crypto::Rng& rng = crypto::system_rng();
  const auto t0 = std::chrono::steady_clock::now();
  long sent = 0, datagrams = 0, errors = 0;
  for (long i = 0; i < count; ++i) {
    std::this_thread::sleep_until(t0 + std::chrono::microseconds(i * 1000000 / rate));
    handshake::UdpClientHandshake hs(cfg, rng);
    hs.start(std::chrono::steady_clock::now());
    const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return 1;
    const int one = 1;
    (void)::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in from{};
    from.sin_family = AF_INET;
    from.sin_addr = sources[static_cast<std::size_t>(i % k)];
    from.sin_port = htons(static_cast<std::uint16_t>(20000 + i / k));
    if (::bind(fd, reinterpret_cast<const sockaddr*>(&from), sizeof from) != 0) {
      ++errors;
      ::close(fd);
      continue;
    }
    for (const Bytes& d : hs.take_datagrams()) {
      if (::sendto(fd, d.data(), d.size(), 0, reinterpret_cast<const sockaddr*>(&to), sizeof to) ==
          static_cast<ssize_t>(d.size())) {
        ++datagrams;
      } else {
        ++errors;
      }
    }
    ::close(fd);
    ++sent;
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("hello_flood: %ld hellos (%ld datagrams, %ld errors) from %ld addresses in %.1f s\n",
              sent, datagrams, errors, k, secs);
  return errors > count / 10 ? 1 : 0;
}
