#include "server/dns_service.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include <cerrno>
#include <cstring>
#include <unordered_map>

#include "crypto/random.h"
#include "dns/name.h"
#include "dns/tcp_framer.h"
#include "transport/endpoint.h"
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

// A UDP client's key is its address and port; a TCP client's its connection id with bit 55
// set, so the two never meet.
constexpr std::uint64_t kTcpKeyBit = std::uint64_t{1} << 55;
std::uint64_t udp_key(const sockaddr_in& sa) {
  return (std::uint64_t{ntohl(sa.sin_addr.s_addr)} << 16) | ntohs(sa.sin_port);
}
sockaddr_in udp_addr(std::uint64_t key) {
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(static_cast<std::uint32_t>(key >> 16));
  sa.sin_port = htons(static_cast<std::uint16_t>(key));
  return sa;
}

sockaddr_in sockaddr_of(std::uint32_t ip, std::uint16_t port) {
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(ip);
  sa.sin_port = htons(port);
  return sa;
}

std::string errno_text(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

}  // namespace

// Everything the thread owns. Only the thread touches it after start().
struct DnsService::Loop {
  struct Conn {
    UniqueFd fd;
    std::uint32_t ip = 0;
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

  bool allowed(std::uint32_t ip) const {
    for (const auto& [net, prefix] : opt.allowed_sources) {
      const std::uint32_t mask = prefix == 0 ? 0 : ~std::uint32_t{0} << (32 - prefix);
      if ((ip & mask) == (net & mask)) return true;
    }
    return false;
  }
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
  void on_udp_listener(Instant now);
  void on_tcp_listener(Instant now);
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
  UniqueFd ep, udp, tcp, stop_fd;
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
  o.port = p.dns.port;
  o.allowed_sources = {{p.pool.cidr.network.value, p.pool.cidr.prefix}, {0x7F000000U, 8}};
  for (const auto& u : p.dns.upstream) {
    if (auto a = config::Ipv4Addr::parse(u)) o.resolver.upstreams.push_back({a->value, 53});
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
  if (o.resolver.upstreams.empty() || o.resolver.upstreams.size() > dns::kMaxUpstreams) {
    return fail(std::string("DNS proxy: 1..16 IPv4 upstreams are needed"));
  }
  std::unique_ptr<DnsService> s(new DnsService(std::move(o)));
  const std::string where =
      transport::ipv4_to_string(s->opt_.listen_ip) + ":" + std::to_string(s->opt_.port);
  auto loop = std::make_unique<Loop>(*s, s->opt_);
  loop->ep.reset(::epoll_create1(EPOLL_CLOEXEC));
  loop->stop_fd.reset(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!loop->ep.valid() || !loop->stop_fd.valid()) return fail(errno_text("DNS proxy: epoll"));
  loop->udp.reset(::socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  loop->tcp.reset(::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!loop->udp.valid() || !loop->tcp.valid()) return fail(errno_text("DNS proxy: socket"));
  const int one = 1;
  ::setsockopt(loop->tcp.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in sa = sockaddr_of(s->opt_.listen_ip, s->opt_.port);
  if (::bind(loop->udp.get(), reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0) {
    return fail("DNS proxy: cannot bind udp " + where + ": " + std::strerror(errno));
  }
  // TCP on the port UDP got (port 0 in tests: the kernel's choice).
  socklen_t len = sizeof sa;
  ::getsockname(loop->udp.get(), reinterpret_cast<sockaddr*>(&sa), &len);
  s->port_ = ntohs(sa.sin_port);
  if (::bind(loop->tcp.get(), reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0 ||
      ::listen(loop->tcp.get(), 64) != 0) {
    return fail("DNS proxy: cannot bind tcp " + where + ": " + std::strerror(errno));
  }
  loop->add(loop->udp.get(), EPOLLIN, tag(kUdpListener));
  loop->add(loop->tcp.get(), EPOLLIN, tag(kTcpListener));
  loop->add(loop->stop_fd.get(), EPOLLIN, tag(kStop));
  loop->was_down.assign(s->opt_.resolver.upstreams.size(), false);
  s->loop_ = std::move(loop);
  s->thread_ = std::thread([l = s->loop_.get()] { l->run(); });
  std::string ups;
  for (const auto& u : s->opt_.resolver.upstreams) {
    ups += (ups.empty() ? "" : ", ") + transport::ipv4_to_string(u.ipv4) +
           (u.port == 53 ? "" : ":" + std::to_string(u.port));
  }
  spdlog::info(
      "[{}] DNS proxy on {}:{} (udp, tcp) → {} over {}, cache {} entries, {} blocked "
      "domain(s)",
      s->opt_.profile, transport::ipv4_to_string(s->opt_.listen_ip), s->port_, ups,
      s->opt_.resolver.upstream_transport == dns::Transport::kTcp ? "tcp" : "udp",
      s->opt_.resolver.cache_size, s->opt_.resolver.blocklist.size());
  return s;
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
        case kUdpListener: on_udp_listener(now); break;
        case kTcpListener: on_tcp_listener(now); break;
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

void DnsService::Loop::on_udp_listener(Instant now) {
  for (int i = 0; i < 64; ++i) {  // bounded per wakeup: TCP and upstreams get their turn
    sockaddr_in from{};
    socklen_t len = sizeof from;
    const ssize_t n =
        ::recvfrom(udp.get(), buf.data(), buf.size(), 0, reinterpret_cast<sockaddr*>(&from), &len);
    if (n < 0) return;
    const std::uint32_t ip = ntohl(from.sin_addr.s_addr);
    if (!allowed(ip)) {
      svc.counters_.add(dns::Counter::kRefusedSource);
      continue;
    }
    resolver.on_query({udp_key(from), ip, dns::Transport::kUdp},
                      ByteSpan(buf.data(), static_cast<std::size_t>(n)), now, actions);
    apply(now);
  }
}

void DnsService::Loop::on_tcp_listener(Instant now) {
  for (int i = 0; i < 16; ++i) {
    sockaddr_in from{};
    socklen_t len = sizeof from;
    const int fd = ::accept4(tcp.get(), reinterpret_cast<sockaddr*>(&from), &len,
                             SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;
    UniqueFd conn(fd);
    const std::uint32_t ip = ntohl(from.sin_addr.s_addr);
    if (!allowed(ip)) {
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
    c.ip = ip;
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
    resolver.on_query({id | kTcpKeyBit, c.ip, dns::Transport::kTcp}, *msg, now, actions);
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
  const dns::Upstream& u = opt.resolver.upstreams.at(s.upstream);
  const bool tcp_attempt = s.transport == dns::Transport::kTcp;
  UpSock up;
  up.transport = s.transport;
  up.fd.reset(::socket(AF_INET,
                       (tcp_attempt ? SOCK_STREAM : SOCK_DGRAM) | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!up.fd.valid()) {
    spdlog::warn("[{}] DNS proxy: upstream socket: {}", opt.profile, std::strerror(errno));
    return false;
  }
  const sockaddr_in sa = sockaddr_of(u.ipv4, u.port);
  const int rc = ::connect(up.fd.get(), reinterpret_cast<const sockaddr*>(&sa), sizeof sa);
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
        const sockaddr_in to = udp_addr(r.to.key);
        (void)::sendto(udp.get(), r.message.data(), r.message.size(), 0,
                       reinterpret_cast<const sockaddr*>(&to), sizeof to);
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
    const std::string addr = transport::ipv4_to_string(opt.resolver.upstreams[i].ipv4);
    if (down) {
      spdlog::warn("[{}] DNS upstream {} is not answering: skipped for now, probed again later",
                   opt.profile, addr);
    } else {
      spdlog::info("[{}] DNS upstream {} answers again", opt.profile, addr);
    }
  }
}

}  // namespace qeli::server
