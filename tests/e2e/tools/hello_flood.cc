// hello_flood — a flood of half-open UDP handshakes for the e2e defences test
// (tests/e2e/udp_defences.sh). Sends COUNT real first flights (a fresh
// UdpClientHandshake each: a cookie marker and a ClientHello padded to ≥ 1200 bytes in 2
// fragments, as a real client's) to SERVER:PORT, each from its own source address:
// source IP i % k of the k given, source port 20000 + i / k. Never reads an answer. Paced
// at RATE hellos per second so the run is bounded in time (COUNT / RATE seconds).
//
// --spoof: the source addresses need not exist. Each datagram is written whole — IPv4
// and UDP headers included — to a raw socket (IPPROTO_RAW, which implies IP_HDRINCL;
// root or CAP_NET_RAW in the sender's namespace), so the answers go to addresses nobody
// holds, as in a flood from spoofed sources. The hellos must be real ones (a
// ClientHello the server can parse), or the server's key agreement would fail at once
// and no login slot would stay taken: hence C++ over the real handshake code rather
// than a script.
// Usage: hello_flood [--spoof] SERVER_IP PORT COUNT RATE SRC_IP...
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "crypto/random.h"
#include "handshake/udp_client_handshake.h"

namespace {

bool parse_ip(const char* s, in_addr& out) { return ::inet_pton(AF_INET, s, &out) == 1; }

// RFC 1071 ones' complement sum over `n` bytes, folded, starting from `sum`.
std::uint32_t ones_sum(const std::uint8_t* p, std::size_t n, std::uint32_t sum = 0) {
  for (std::size_t i = 0; i + 1 < n; i += 2)
    sum += static_cast<std::uint32_t>(p[i] << 8 | p[i + 1]);
  if ((n & 1) != 0) sum += static_cast<std::uint32_t>(p[n - 1] << 8);
  return sum;
}
std::uint16_t fold(std::uint32_t sum) {
  while ((sum >> 16) != 0) sum = (sum & 0xFFFF) + (sum >> 16);
  return static_cast<std::uint16_t>(~sum);
}

// An IPv4/UDP packet from `src:sport` to `dst:dport` carrying `payload` (checksums set).
std::vector<std::uint8_t> ipv4_udp(in_addr src, std::uint16_t sport, in_addr dst,
                                   std::uint16_t dport, const std::vector<std::uint8_t>& payload) {
  const std::size_t udp_len = 8 + payload.size(), total = 20 + udp_len;
  std::vector<std::uint8_t> p(total);
  p[0] = 0x45;
  p[2] = static_cast<std::uint8_t>(total >> 8);
  p[3] = static_cast<std::uint8_t>(total);
  p[6] = 0x40;  // DF
  p[8] = 64;    // TTL
  p[9] = IPPROTO_UDP;
  std::memcpy(&p[12], &src, 4);
  std::memcpy(&p[16], &dst, 4);
  const std::uint16_t ip_sum = fold(ones_sum(p.data(), 20));
  p[10] = static_cast<std::uint8_t>(ip_sum >> 8);
  p[11] = static_cast<std::uint8_t>(ip_sum);
  std::uint8_t* u = p.data() + 20;
  u[0] = static_cast<std::uint8_t>(sport >> 8);
  u[1] = static_cast<std::uint8_t>(sport);
  u[2] = static_cast<std::uint8_t>(dport >> 8);
  u[3] = static_cast<std::uint8_t>(dport);
  u[4] = static_cast<std::uint8_t>(udp_len >> 8);
  u[5] = static_cast<std::uint8_t>(udp_len);
  std::memcpy(u + 8, payload.data(), payload.size());
  // Pseudo-header: src, dst, zero, protocol, UDP length.
  std::uint32_t sum = ones_sum(&p[12], 8);
  sum += IPPROTO_UDP + static_cast<std::uint32_t>(udp_len);
  std::uint16_t udp_sum = fold(ones_sum(u, udp_len, sum));
  if (udp_sum == 0) udp_sum = 0xFFFF;
  u[6] = static_cast<std::uint8_t>(udp_sum >> 8);
  u[7] = static_cast<std::uint8_t>(udp_sum);
  return p;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace qeli;
  int a = 1;
  const bool spoof = argc > 1 && std::string(argv[1]) == "--spoof";
  if (spoof) ++a;
  if (argc - a < 5) {
    std::fprintf(stderr, "usage: %s [--spoof] SERVER_IP PORT COUNT RATE SRC_IP...\n", argv[0]);
    return 2;
  }
  in_addr server{};
  if (!parse_ip(argv[a], server)) return 2;
  const long port = std::strtol(argv[a + 1], nullptr, 10);
  const long count = std::strtol(argv[a + 2], nullptr, 10);
  const long rate = std::strtol(argv[a + 3], nullptr, 10);
  std::vector<in_addr> sources;
  for (int i = a + 4; i < argc; ++i) {
    in_addr s{};
    if (!parse_ip(argv[i], s)) return 2;
    sources.push_back(s);
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
  const int raw = spoof ? ::socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW) : -1;
  if (spoof && raw < 0) {
    std::perror("hello_flood: raw socket");
    return 1;
  }

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
    const in_addr src = sources[static_cast<std::size_t>(i % k)];
    const auto sport = static_cast<std::uint16_t>(20000 + i / k);
    if (spoof) {
      for (const Bytes& d : hs.take_datagrams()) {
        const auto pkt = ipv4_udp(src, sport, server, static_cast<std::uint16_t>(port), d);
        if (::sendto(raw, pkt.data(), pkt.size(), 0, reinterpret_cast<const sockaddr*>(&to),
                     sizeof to) == static_cast<ssize_t>(pkt.size())) {
          ++datagrams;
        } else {
          ++errors;
        }
      }
      ++sent;
      continue;
    }
    const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return 1;
    const int one = 1;
    (void)::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in from{};
    from.sin_family = AF_INET;
    from.sin_addr = src;
    from.sin_port = htons(sport);
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
  if (raw >= 0) ::close(raw);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf(
      "hello_flood: %ld hellos (%ld datagrams, %ld errors) from %ld addresses%s in %.1f s\n", sent,
      datagrams, errors, k, spoof ? " (spoofed)" : "", secs);
  return errors > count / 10 ? 1 : 0;
}
