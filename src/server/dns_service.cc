#include "server/dns_service.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <unordered_map>

#include "crypto/random.h"
#include "dns/name.h"
#include "dns/tcp_framer.h"
#include "transport/endpoint.h"
#include "transport/sock_addr.h"
#include "transport/unique_fd.h"

namespace qeli::server {
namespace {

using transport::UniqueFd;
using Clock = std::chrono::steady_clock;

// epoll tags: the kind in the top byte, an id below.
enum Kind : std::uint64_t { kUdpListener = 1, kTcpListener, kStop, kConn, kAttempt };
constexpr int kKindShift = 56;
std::uint64_t tag(Kind k, std::uint64_t id = 0) { return (std::uint64_t{k} << kKindShift) | id; }
Kind kind_of(std::uint64_t t) { return static_cast<Kind>(t >> kKindShift); }
std::uint64_t id_of(std::uint64_t t) { return t & ((std::uint64_t{1} << kKindShift) - 1); }

// A client in a dns::ClientRef. UDP: an IPv4 client's address and port in the key; an
// IPv6 one's port beside kUdp6KeyBit, its address in reply_to. TCP: the connection id with
// kTcpKeyBit. The three never meet.
constexpr std::uint64_t kTcpKeyBit = std::uint64_t{1} << 55;
constexpr std::uint64_t kUdp6KeyBit = std::uint64_t{1} << 54;

// The per-source bound's identity: an IPv4 address as it is; an IPv6 one by its low 64
// bits (what tells the clients of a /64 or narrower pool apart), bit 63 set to keep it
// apart from every IPv4 address.
std::uint64_t source_of(const transport::SockAddr& a) {
  if (a.is_ipv4()) return a.ipv4_host();
  std::uint64_t low = 0;
  for (int i = 8; i < 16; ++i) low = (low << 8) | a.v6.sin6_addr.s6_addr[i];
  return low | (std::uint64_t{1} << 63);
}

dns::ClientRef udp_client(const transport::SockAddr& a) {
  dns::ClientRef c;
  c.source = source_of(a);
  if (a.is_ipv4()) {
    c.key = (std::uint64_t{a.ipv4_host()} << 16) | a.port();
  } else {
    c.key = kUdp6KeyBit | a.port();
    std::memcpy(c.reply_to.data(), a.v6.sin6_addr.s6_addr, 16);
  }
  return c;
}

transport::SockAddr udp_peer(const dns::ClientRef& c) {
  const auto port = static_cast<std::uint16_t>(c.key);
  if ((c.key & kUdp6KeyBit) == 0) {
    return transport::SockAddr::ipv4(static_cast<std::uint32_t>(c.key >> 16), port);
  }
  return transport::SockAddr::ipv6(c.reply_to.data(), port);
}

transport::SockAddr ipv6_at(const config::Ipv6Addr& ip, std::uint16_t port) {
  return transport::SockAddr::ipv6(ip.bytes.data(), port);
}

// "1.1.1.1" or "2606:4700::1111" on port 53 (what the config says), else "a:p" / "[v6]:p".
std::string upstream_name(const transport::SockAddr& a) {
  if (a.port() != 53) return a.to_string();
  const std::string s = a.to_string();
  if (a.family() == AF_INET) return s.substr(0, s.rfind(':'));
  return s.substr(1, s.rfind(']') - 1);
}

std::string errno_text(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

// A non-blocking socket bound to `at`; IPv6 only for an IPv6 address (a `::` listener
// elsewhere on the port is no conflict, and no peer shows up IPv4-mapped).
Result<UniqueFd, std::string> bound_socket(int type, const transport::SockAddr& at) {
  const char* what = type == SOCK_STREAM ? "tcp " : "udp ";
  UniqueFd fd(::socket(at.family(), type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return fail(errno_text("DNS proxy: socket"));
  const int one = 1;
  if (type == SOCK_STREAM) ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (at.is_ipv6() && ::setsockopt(fd.get(), IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one) != 0) {
    return fail(errno_text("DNS proxy: IPV6_V6ONLY"));
  }
  if (::bind(fd.get(), &at.sa, at.len) != 0) {
    return fail("DNS proxy: cannot bind " + std::string(what) + at.to_string() + ": " +
                std::strerror(errno));
  }
  if (type == SOCK_STREAM && ::listen(fd.get(), 64) != 0) {
    return fail(errno_text("DNS proxy: listen"));
  }
  return fd;
}

}  // namespace

// Everything the thread owns. Only the thread touches it after start().
struct DnsService::Loop {
  enum Family : std::uint8_t { kV4, kV6 };
  struct Conn {
    UniqueFd fd;
    std::uint64_t source = 0;  ///< source_of() its peer
    dns::TcpDeframer in;
    Bytes out;
    std::size_t out_off = 0;
    Instant last;
    std::uint32_t events = 0;  ///< registered epoll events
  };
  struct UpSock {
    UniqueFd fd;
    dns::Transport transport = dns::Transport::kUdp;
    bool connecting = false;
    Bytes out;  ///< TCP: the framed query until written
    std::size_t out_off = 0;
    dns::TcpDeframer in;
  };

  Loop(DnsService& s, const DnsServiceOptions& o)
      : svc(s), opt(o), resolver(o.resolver, crypto::system_rng(), s.counters_) {}

  /// UDP and TCP of one family on `at` (port 0: the kernel's choice for UDP, which TCP
  /// then takes too); returns the port.
  Result<std::uint16_t, std::string> listen(Family f, transport::SockAddr at);
  void add(int fd, std::uint32_t events, std::uint64_t t) {
    epoll_event ev{};
    ev.events = events;
    ev.data.u64 = t;
    ::epoll_ctl(ep.get(), EPOLL_CTL_ADD, fd, &ev);
  }
  void modify(int fd, std::uint32_t events, std::uint64_t t) {
    epoll_event ev{};
    ev.events = events;
    ev.data.u64 = t;
    ::epoll_ctl(ep.get(), EPOLL_CTL_MOD, fd, &ev);
  }

  void run();
  void on_udp_listener(Family f, Instant now);
  void on_tcp_listener(Family f, Instant now);
  void on_conn(std::uint64_t id, std::uint32_t events, Instant now);
  void flush_conn(std::uint64_t id, Conn& c);
  void update_conn(std::uint64_t id, Conn& c);
  bool may_take(std::uint64_t id, const Conn& c) const;
  /// Hands the connection's buffered questions to the resolver while it may take more;
  /// true if it handed any.
  bool pump(std::uint64_t id, Conn& c, Instant now);
  void close_conn(std::uint64_t id);
  void on_attempt(dns::AttemptId id, std::uint32_t events, Instant now);
  bool open_attempt(const dns::Actions::Send& s);
  void apply(Instant now);
  void apply_once(Instant now);
  void expire_conns(Instant now);
  void log_upstream_changes();
  int wait_ms(Instant now) const;

  DnsService& svc;
  const DnsServiceOptions& opt;
  dns::Resolver resolver;
  dns::Actions actions;
  UniqueFd ep, stop_fd;
  /// Per family: the UDP and TCP listeners (not valid for IPv6 without listen_ipv6).
  struct Listener {
    UniqueFd udp, tcp;
  };
  std::array<Listener, 2> listeners;
  std::unordered_map<std::uint64_t, Conn> conns;
  std::uint64_t next_conn = 0;
  std::unordered_map<dns::AttemptId, UpSock> ups;
  std::vector<bool> was_down;
  Bytes buf = Bytes(dns::kMaxMessage);
};

DnsServiceOptions dns_service_options(const config::ProfileConfig& p) {
  DnsServiceOptions o;
  o.profile = p.name;
  o.listen_ip = p.dns.listen.value;
  o.listen_ipv6 = p.dns.listen_ipv6;
  o.port = p.dns.port;
  std::vector<config::Ipv6Cidr> v6{*config::Ipv6Cidr::parse("::1/128")};
  if (p.pool.ipv6) v6.push_back(*p.pool.ipv6);
  o.allowed_sources = AllowedSources({p.pool.cidr, {{0x7F000000U}, 8}}, std::move(v6));
  for (const auto& u : p.dns.upstream) {
    if (auto a = config::Ipv4Addr::parse(u)) {
      o.upstreams.push_back(transport::SockAddr::ipv4(a->value, 53));
    } else if (auto a6 = config::Ipv6Addr::parse(u); a6 && config::dns_upstream_usable(*a6)) {
      o.upstreams.push_back(ipv6_at(*a6, 53));
    }
  }
  o.resolver.upstream_transport = p.dns.upstream_protocol == config::DnsProtocol::kTcp
                                      ? dns::Transport::kTcp
                                      : dns::Transport::kUdp;
  o.resolver.timeout = p.dns.timeout;
  o.resolver.cache_size = p.dns.cache_size;
  for (const auto& d : p.dns.blocklist) {
    if (auto w = dns::parse_domain(d)) o.resolver.blocklist.add(std::move(*w));
  }
  return o;
}

DnsService::DnsService(DnsServiceOptions o) : opt_(std::move(o)) {}

DnsService::~DnsService() { stop(); }

Result<std::unique_ptr<DnsService>, std::string> DnsService::start(DnsServiceOptions o) {
  if (o.upstreams.empty() || o.upstreams.size() > dns::kMaxUpstreams) {
    return fail(std::string("DNS proxy: 1..16 upstreams are needed"));
  }
  o.resolver.upstream_count = o.upstreams.size();
  std::unique_ptr<DnsService> s(new DnsService(std::move(o)));
  auto loop = std::make_unique<Loop>(*s, s->opt_);
  loop->ep.reset(::epoll_create1(EPOLL_CLOEXEC));
  loop->stop_fd.reset(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!loop->ep.valid() || !loop->stop_fd.valid()) return fail(errno_text("DNS proxy: epoll"));
  auto port = loop->listen(Loop::kV4, transport::SockAddr::ipv4(s->opt_.listen_ip, s->opt_.port));
  if (!port.ok()) return fail(port.error());
  s->port_ = *port;
  // IPv6 on the port IPv4 got (the kernel's choice in tests).
  if (s->opt_.listen_ipv6) {
    auto port6 = loop->listen(Loop::kV6, ipv6_at(*s->opt_.listen_ipv6, s->port_));
    if (!port6.ok()) return fail(port6.error());
  }
  loop->add(loop->stop_fd.get(), EPOLLIN, tag(kStop));
  loop->was_down.assign(s->opt_.upstreams.size(), false);
  s->loop_ = std::move(loop);
  s->thread_ = std::thread([l = s->loop_.get()] { l->run(); });
  std::string ups;
  for (const auto& u : s->opt_.upstreams) ups += (ups.empty() ? "" : ", ") + upstream_name(u);
  std::string on = transport::SockAddr::ipv4(s->opt_.listen_ip, s->port_).to_string();
  if (s->opt_.listen_ipv6) on += " and " + ipv6_at(*s->opt_.listen_ipv6, s->port_).to_string();
  spdlog::info(
      "[{}] DNS proxy on {} (udp, tcp) → {} over {}, cache {} entries, {} blocked "
      "domain(s)",
      s->opt_.profile, on, ups,
      s->opt_.resolver.upstream_transport == dns::Transport::kTcp ? "tcp" : "udp",
      s->opt_.resolver.cache_size, s->opt_.resolver.blocklist.size());
  return s;
}

Result<std::uint16_t, std::string> DnsService::Loop::listen(Family f, transport::SockAddr at) {
  auto udp = bound_socket(SOCK_DGRAM, at);
  if (!udp.ok()) return fail(udp.error());
  at = at.with_port(transport::SockAddr::local_of(udp->get()).port());
  auto tcp = bound_socket(SOCK_STREAM, at);
  if (!tcp.ok()) return fail(tcp.error());
  listeners[f] = {std::move(*udp), std::move(*tcp)};
  add(listeners[f].udp.get(), EPOLLIN, tag(kUdpListener, f));
  add(listeners[f].tcp.get(), EPOLLIN, tag(kTcpListener, f));
  return at.port();
}

void DnsService::stop() {
  if (thread_.joinable()) {
    const std::uint64_t one = 1;
    (void)::write(loop_->stop_fd.get(), &one, sizeof one);
    thread_.join();
  }
  loop_.reset();
}

void DnsService::Loop::run() {
  epoll_event events[64];
  for (;;) {
    const int n = ::epoll_wait(ep.get(), events, 64, wait_ms(Clock::now()));
    if (n < 0 && errno != EINTR) {
      spdlog::error("[{}] DNS proxy: epoll_wait: {}", opt.profile, std::strerror(errno));
      return;
    }
    Instant now = Clock::now();
    for (int i = 0; i < n; ++i) {
      const std::uint64_t t = events[i].data.u64;
      switch (kind_of(t)) {
        case kStop: return;
        case kUdpListener: on_udp_listener(static_cast<Family>(id_of(t)), now); break;
        case kTcpListener: on_tcp_listener(static_cast<Family>(id_of(t)), now); break;
        case kConn: on_conn(id_of(t), events[i].events, now); break;
        case kAttempt: on_attempt(id_of(t), events[i].events, now); break;
      }
      apply(now);
    }
    now = Clock::now();
    resolver.on_timer(now, actions);
    apply(now);
    expire_conns(now);
    log_upstream_changes();
  }
}

int DnsService::Loop::wait_ms(Instant now) const {
  std::optional<Instant> next = resolver.next_deadline();
  if (!conns.empty()) {
    // Idle connections are swept at least once a second.
    const Instant sweep = now + std::chrono::seconds{1};
    if (!next || sweep < *next) next = sweep;
  }
  if (!next) return -1;
  if (*next <= now) return 0;
  return static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(*next - now).count());
}

void DnsService::Loop::on_udp_listener(Family f, Instant now) {
  for (int i = 0; i < 64; ++i) {  // bounded per wakeup: TCP and upstreams get their turn
    sockaddr_storage from{};
    socklen_t len = sizeof from;
    const ssize_t n = ::recvfrom(listeners[f].udp.get(), buf.data(), buf.size(), 0,
                                 reinterpret_cast<sockaddr*>(&from), &len);
    if (n < 0) return;
    const auto src = transport::SockAddr::from_sockaddr(reinterpret_cast<sockaddr*>(&from), len);
    if (!opt.allowed_sources.allows(src)) {
      svc.counters_.add(dns::Counter::kRefusedSource);
      continue;
    }
    resolver.on_query(udp_client(src), ByteSpan(buf.data(), static_cast<std::size_t>(n)), now,
                      actions);
    apply(now);
  }
}

void DnsService::Loop::on_tcp_listener(Family f, Instant now) {
  for (int i = 0; i < 16; ++i) {
    sockaddr_storage from{};
    socklen_t len = sizeof from;
    const int fd = ::accept4(listeners[f].tcp.get(), reinterpret_cast<sockaddr*>(&from), &len,
                             SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;
    UniqueFd conn(fd);
    const auto src = transport::SockAddr::from_sockaddr(reinterpret_cast<sockaddr*>(&from), len);
    if (!opt.allowed_sources.allows(src)) {
      svc.counters_.add(dns::Counter::kRefusedSource);
      continue;
    }
    if (conns.size() >= dns::kMaxTcpClients) {
      svc.counters_.add(dns::Counter::kTcpRejected);
      continue;
    }
    const std::uint64_t id = ++next_conn;
    Conn& c = conns[id];
    c.fd = std::move(conn);
    c.source = source_of(src);
    c.last = now;
    c.events = EPOLLIN;
    add(c.fd.get(), EPOLLIN, tag(kConn, id));
  }
}

void DnsService::Loop::on_conn(std::uint64_t id, std::uint32_t events, Instant now) {
  auto it = conns.find(id);
  if (it == conns.end()) return;
  Conn& c = it->second;
  if ((events & EPOLLOUT) != 0) flush_conn(id, c);
  if (conns.find(id) == conns.end()) return;
  if ((events & (EPOLLIN | EPOLLHUP | EPOLLERR)) == 0) return;
  const std::size_t room = std::min<std::size_t>(c.in.space(), 16384);
  const ssize_t n = room == 0 ? 0 : ::read(c.fd.get(), buf.data(), room);
  if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
    close_conn(id);
    return;
  }
  if (n < 0) return;
  c.last = now;
  c.in.feed(ByteSpan(buf.data(), static_cast<std::size_t>(n)));
  pump(id, c, now);
  if (c.in.bad()) {
    svc.counters_.add(dns::Counter::kMalformed);
    close_conn(id);
    return;
  }
  update_conn(id, c);
}

bool DnsService::Loop::may_take(std::uint64_t id, const Conn& c) const {
  return resolver.in_flight_for(id | kTcpKeyBit) < dns::kMaxPipelinedPerConnection &&
         c.out.size() - c.out_off < dns::kMaxTcpOutput / 2;
}

bool DnsService::Loop::pump(std::uint64_t id, Conn& c, Instant now) {
  bool took = false;
  while (may_take(id, c)) {
    auto msg = c.in.next();
    if (!msg) break;
    resolver.on_query({id | kTcpKeyBit, c.source, dns::Transport::kTcp}, *msg, now, actions);
    took = true;
  }
  return took;
}

void DnsService::Loop::flush_conn(std::uint64_t id, Conn& c) {
  while (c.out_off < c.out.size()) {
    const ssize_t n =
        ::send(c.fd.get(), c.out.data() + c.out_off, c.out.size() - c.out_off, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EAGAIN || errno == EINTR) break;
      close_conn(id);
      return;
    }
    c.out_off += static_cast<std::size_t>(n);
  }
  if (c.out_off == c.out.size()) {
    c.out.clear();
    c.out_off = 0;
  }
  update_conn(id, c);
}

// Reads while the connection may queue more questions and its unsent answers are few;
// writes while answers wait.
void DnsService::Loop::update_conn(std::uint64_t id, Conn& c) {
  std::uint32_t want = may_take(id, c) ? std::uint32_t{EPOLLIN} : 0U;
  if (c.out_off < c.out.size()) want |= EPOLLOUT;
  if (want != c.events) {
    modify(c.fd.get(), want, tag(kConn, id));
    c.events = want;
  }
}

void DnsService::Loop::close_conn(std::uint64_t id) {
  resolver.forget_client(id | kTcpKeyBit);
  conns.erase(id);  // closing the fd takes it out of the epoll set
}

void DnsService::Loop::expire_conns(Instant now) {
  for (auto it = conns.begin(); it != conns.end();) {
    const bool busy = resolver.in_flight_for(it->first | kTcpKeyBit) > 0 ||
                      it->second.out_off < it->second.out.size();
    if (!busy && now - it->second.last >= dns::kTcpIdleTimeout) {
      resolver.forget_client(it->first | kTcpKeyBit);
      it = conns.erase(it);
    } else {
      ++it;
    }
  }
}

bool DnsService::Loop::open_attempt(const dns::Actions::Send& s) {
  const transport::SockAddr& sa = opt.upstreams.at(s.upstream);
  const bool tcp_attempt = s.transport == dns::Transport::kTcp;
  UpSock up;
  up.transport = s.transport;
  up.fd.reset(::socket(sa.family(),
                       (tcp_attempt ? SOCK_STREAM : SOCK_DGRAM) | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!up.fd.valid()) {
    spdlog::warn("[{}] DNS proxy: upstream socket: {}", opt.profile, std::strerror(errno));
    return false;
  }
  const int rc = ::connect(up.fd.get(), &sa.sa, sa.len);
  if (rc != 0 && !(tcp_attempt && errno == EINPROGRESS)) return false;
  std::uint32_t events = EPOLLIN;
  if (tcp_attempt) {
    up.connecting = true;
    up.out = dns::tcp_frame(s.message);
    events |= EPOLLOUT;
  } else if (::send(up.fd.get(), s.message.data(), s.message.size(), 0) < 0) {
    return false;
  }
  add(up.fd.get(), events, tag(kAttempt, s.attempt));
  ups.emplace(s.attempt, std::move(up));
  return true;
}

void DnsService::Loop::on_attempt(dns::AttemptId id, std::uint32_t events, Instant now) {
  auto it = ups.find(id);
  if (it == ups.end()) return;
  UpSock& up = it->second;
  if (up.transport == dns::Transport::kUdp) {
    // One datagram per wakeup: after an answer the attempt may be closed.
    const ssize_t n = ::recv(up.fd.get(), buf.data(), buf.size(), 0);
    if (n >= 0) {
      resolver.on_upstream_reply(id, ByteSpan(buf.data(), static_cast<std::size_t>(n)), now,
                                 actions);
    } else if (errno != EAGAIN && errno != EINTR) {
      resolver.on_upstream_error(id, now, actions);  // ICMP port unreachable: ECONNREFUSED
    }
    return;
  }
  if ((events & EPOLLERR) != 0) {
    resolver.on_upstream_error(id, now, actions);
    return;
  }
  if (up.connecting && (events & EPOLLOUT) != 0) {
    int err = 0;
    socklen_t len = sizeof err;
    ::getsockopt(up.fd.get(), SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) {
      resolver.on_upstream_error(id, now, actions);
      return;
    }
    up.connecting = false;
  }
  if (!up.connecting && up.out_off < up.out.size()) {
    const ssize_t n =
        ::send(up.fd.get(), up.out.data() + up.out_off, up.out.size() - up.out_off, MSG_NOSIGNAL);
    if (n < 0 && errno != EAGAIN && errno != EINTR) {
      resolver.on_upstream_error(id, now, actions);
      return;
    }
    if (n > 0) up.out_off += static_cast<std::size_t>(n);
    if (up.out_off == up.out.size()) modify(up.fd.get(), EPOLLIN, tag(kAttempt, id));
  }
  if ((events & (EPOLLIN | EPOLLHUP)) == 0) return;
  const std::size_t room = std::min<std::size_t>(up.in.space(), buf.size());
  const ssize_t n = ::read(up.fd.get(), buf.data(), room);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
  if (n <= 0) {
    resolver.on_upstream_error(id, now, actions);  // closed or reset before a whole answer
    return;
  }
  up.in.feed(ByteSpan(buf.data(), static_cast<std::size_t>(n)));
  if (auto msg = up.in.next()) {
    resolver.on_upstream_reply(id, *msg, now, actions);
  } else if (up.in.bad()) {
    resolver.on_upstream_error(id, now, actions);
  }
}

// Carries out what the resolver asked for; opening an attempt can fail at once (no
// socket, no route), which the resolver hears about as an upstream error.
void DnsService::Loop::apply(Instant now) {
  for (;;) {
    apply_once(now);
    // Answers made room: connections with questions already buffered go on (nothing new
    // may arrive to wake them). A bad frame is left for on_conn() to see.
    bool took = false;
    for (auto& [id, c] : conns) took = pump(id, c, now) || took;
    if (!took) break;
  }
  for (auto& [id, c] : conns) update_conn(id, c);
}

void DnsService::Loop::apply_once(Instant now) {
  while (!actions.empty()) {
    dns::Actions todo = std::move(actions);
    actions.clear();
    for (const auto& r : todo.replies) {
      if (r.to.transport == dns::Transport::kUdp) {
        const transport::SockAddr to = udp_peer(r.to);
        const int fd = listeners[to.is_ipv6() ? kV6 : kV4].udp.get();
        (void)::sendto(fd, r.message.data(), r.message.size(), 0, &to.sa, to.len);
        continue;
      }
      const std::uint64_t id = r.to.key & ~kTcpKeyBit;
      auto it = conns.find(id);
      if (it == conns.end()) continue;
      Conn& c = it->second;
      if (c.out.size() - c.out_off + r.message.size() + 2 > dns::kMaxTcpOutput) {
        close_conn(id);  // it does not read its answers
        continue;
      }
      const Bytes framed = dns::tcp_frame(r.message);
      c.out.insert(c.out.end(), framed.begin(), framed.end());
      c.last = now;
      flush_conn(id, c);
    }
    for (const auto& s : todo.sends) {
      if (!open_attempt(s)) resolver.on_upstream_error(s.attempt, now, actions);
    }
    for (const dns::AttemptId a : todo.closes) ups.erase(a);
  }
}

void DnsService::Loop::log_upstream_changes() {
  for (std::size_t i = 0; i < was_down.size(); ++i) {
    const bool down = resolver.upstream_down(i);
    if (down == was_down[i]) continue;
    was_down[i] = down;
    const std::string addr = upstream_name(opt.upstreams[i]);
    if (down) {
      spdlog::warn("[{}] DNS upstream {} is not answering: skipped for now, probed again later",
                   opt.profile, addr);
    } else {
      spdlog::info("[{}] DNS upstream {} answers again", opt.profile, addr);
    }
  }
}

}  // namespace qeli::server
