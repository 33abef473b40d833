#include "server/webhook_poster.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <httplib.h>
#include <array>
#include <cstring>

namespace qeli::server {
namespace {

constexpr std::size_t kMaxAnswer = 256 * 1024;

bool in_v4(std::uint32_t a, std::uint32_t net, int bits) {
  const std::uint32_t mask = bits == 0 ? 0 : ~std::uint32_t{0} << (32 - bits);
  return (a & mask) == (net & mask);
}

bool public_v4(std::uint32_t a) {
  struct Net {
    std::uint32_t net;
    int bits;
  };
  static constexpr std::array<Net, 15> kBlocked = {{
      {0x00000000, 8},   // this network
      {0x0a000000, 8},   // RFC 1918
      {0x64400000, 10},  // CGNAT (RFC 6598)
      {0x7f000000, 8},   // loopback
      {0xa9fe0000, 16},  // link-local
      {0xac100000, 12},  // RFC 1918
      {0xc0000000, 24},  // IETF protocol assignments
      {0xc0000200, 24},  // TEST-NET-1
      {0xc0a80000, 16},  // RFC 1918
      {0xc6120000, 15},  // benchmarking
      {0xc6336400, 24},  // TEST-NET-2
      {0xcb007100, 24},  // TEST-NET-3
      {0xe0000000, 4},   // multicast
      {0xf0000000, 4},   // reserved, broadcast
      {0xc0586300, 24},  // 6to4 relay anycast
  }};
  for (const auto& n : kBlocked) {
    if (in_v4(a, n.net, n.bits)) return false;
  }
  return true;
}

std::uint32_t v4_at(const std::uint8_t* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) |
         p[3];
}

bool public_v6(const std::uint8_t* a) {
  static constexpr std::uint8_t kZero[16] = {};
  if (std::memcmp(a, kZero, 15) == 0) return false;         // :: and ::1
  if ((a[0] & 0xfe) == 0xfc) return false;                  // fc00::/7 unique local
  if (a[0] == 0xfe && (a[1] & 0xc0) == 0x80) return false;  // fe80::/10 link-local
  if (a[0] == 0xff) return false;                           // multicast
  if (a[0] == 0x20 && a[1] == 0x01 && a[2] == 0x0d && a[3] == 0xb8) return false;  // doc
  // IPv4 in IPv6: mapped ::ffff:0:0/96, NAT64 64:ff9b::/96 — judge the IPv4 inside.
  static constexpr std::uint8_t kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  static constexpr std::uint8_t kNat64[12] = {0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0};
  if (std::memcmp(a, kMapped, 12) == 0 || std::memcmp(a, kNat64, 12) == 0) {
    return public_v4(v4_at(a + 12));
  }
  if (a[0] == 0x20 && a[1] == 0x02) return public_v4(v4_at(a + 2));  // 6to4 2002::/16
  return true;
}

std::string numeric(const sockaddr* sa) {
  std::array<char, INET6_ADDRSTRLEN> b{};
  if (sa->sa_family == AF_INET) {
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(sa)->sin_addr, b.data(), b.size());
  } else {
    inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(sa)->sin6_addr, b.data(), b.size());
  }
  return b.data();
}

std::string describe(httplib::Error e, const std::string& where) {
  switch (e) {
    case httplib::Error::Connection: return "cannot connect to " + where;
    case httplib::Error::ConnectionTimeout: return "connecting to " + where + " timed out";
    case httplib::Error::Read: return where + " did not answer in time (or closed)";
    case httplib::Error::Write: return "sending to " + where + " failed";
    case httplib::Error::SSLConnection: return "TLS handshake with " + where + " failed";
    case httplib::Error::SSLServerVerification:
      return where + "'s certificate does not verify against the system's CAs";
    case httplib::Error::SSLLoadingCerts: return "cannot load the system's CA certificates";
    default: return "HTTP error with " + where + ": " + httplib::to_string(e);
  }
}

class HttpPoster final : public WebhookPoster {
 public:
  explicit HttpPoster(bool allow_private) : allow_private_(allow_private) {}

  PostResult post(const config::HttpUrl& url, const HttpHeaders& headers, const std::string& body,
                  std::chrono::seconds timeout) override {
    // Resolve once, check every address, connect to the first that passed.
    addrinfo hints{};
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* res = nullptr;
    if (getaddrinfo(url.host.c_str(), nullptr, &hints, &res) != 0 || res == nullptr) {
      return {0, "cannot resolve " + url.host};
    }
    std::string ip;
    for (const addrinfo* a = res; a != nullptr; a = a->ai_next) {
      if (a->ai_family != AF_INET && a->ai_family != AF_INET6) continue;
      if (!allow_private_ && !is_public_address(a->ai_addr)) {
        const std::string why = numeric(a->ai_addr);
        freeaddrinfo(res);
        return {0, url.host + " resolves to " + why +
                       ", a private or reserved address (set allow_private = true to allow it)"};
      }
      if (ip.empty()) ip = numeric(a->ai_addr);
    }
    freeaddrinfo(res);
    if (ip.empty()) return {0, "no address for " + url.host};

    const std::string host =
        url.host.find(':') != std::string::npos ? "[" + url.host + "]" : url.host;
    httplib::Client cli((url.https ? "https://" : "http://") + host + ":" +
                        std::to_string(url.port));
    cli.set_hostname_addr_map({{url.host, ip}});
    cli.set_follow_location(false);
    cli.set_connection_timeout(timeout);
    cli.set_read_timeout(timeout);
    cli.set_write_timeout(timeout);
    cli.set_keep_alive(false);
    httplib::Request req;
    req.method = "POST";
    req.path = url.target;
    for (const auto& [k, v] : headers) req.set_header(k, v);
    req.body = body;
    std::size_t got = 0;
    req.content_receiver = [&got](const char*, std::size_t n, std::uint64_t, std::uint64_t) {
      got += n;
      return got <= kMaxAnswer;
    };
    httplib::Response resp;
    httplib::Error err = httplib::Error::Success;
    if (!cli.send(req, resp, err)) {
      if (resp.status > 0 && got > kMaxAnswer) return {resp.status, ""};  // answered, long body
      return {0, describe(err, host + ":" + std::to_string(url.port) + " (" + ip + ")")};
    }
    return {resp.status, ""};
  }

 private:
  bool allow_private_;
};

}  // namespace

bool is_public_address(const sockaddr* sa) {
  if (sa->sa_family == AF_INET) {
    return public_v4(ntohl(reinterpret_cast<const sockaddr_in*>(sa)->sin_addr.s_addr));
  }
  if (sa->sa_family == AF_INET6) {
    return public_v6(reinterpret_cast<const sockaddr_in6*>(sa)->sin6_addr.s6_addr);
  }
  return false;
}

std::unique_ptr<WebhookPoster> make_http_poster(bool allow_private) {
  return std::make_unique<HttpPoster>(allow_private);
}

}  // namespace qeli::server
