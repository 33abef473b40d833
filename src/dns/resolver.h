// The DNS proxy's resolver, sans-I/O: client queries, upstream answers and time go in;
// answers to clients, messages to upstreams and sockets to close come out (Actions). The
// I/O runner (server/dns_service.h) owns the sockets and the clock.
//
//   on_query            parse (FORMERR / NOTIMP for what does not parse) → dns.blocklist
//                       → cache → bounded in-flight table → first upstream attempt
//   on_upstream_reply   accepted only with the attempt's random ID and the same question
//                       (anything else — spoofed, stale, junk — is counted and ignored,
//                       the attempt stays open); TC over UDP → the same upstream over TCP;
//                       SERVFAIL / REFUSED / NOTIMP → the next upstream if one is left;
//                       else cache it, answer the client (its ID, RD and question case;
//                       TC=1 if too big for its UDP buffer), close every attempt
//   on_upstream_error   the upstream refused (ICMP, RST, early close) → it is held down,
//                       the question moves on at once
//   on_timer            an attempt past its share of dns.timeout_secs → its upstream is
//                       held down and the question moves on (the late attempt stays
//                       open: its answer still counts); past the whole timeout → SERVFAIL
//
// Upstream health: an upstream that timed out or refused is skipped for kMinHoldDown,
// doubling up to kMaxHoldDown while it keeps failing. When its hold-down ends, the next
// question still goes to the first healthy upstream and ALSO to it, as a probe: its
// answer brings it back, so a dead upstream costs no client any waiting after the first.
//
// Each upstream attempt has its own socket in the runner (a fresh source port) and its
// own random 16-bit ID from `rng`. Not thread-safe: one owner thread.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/bytes.h"
#include "base/clock.h"
#include "crypto/random.h"
#include "dns/blocklist.h"
#include "dns/cache.h"
#include "dns/counters.h"
#include "dns/limits.h"
#include "dns/message.h"

namespace qeli::dns {

enum class Transport : std::uint8_t { kUdp, kTcp };

struct ResolverConfig {
  /// Upstreams 0..upstream_count-1, preferred first (1..kMaxUpstreams). Where each one is
  /// (IPv4 or IPv6) is the runner's business: the resolver only ranks them by index.
  std::size_t upstream_count = 1;
  Transport upstream_transport = Transport::kUdp;
  Duration timeout = std::chrono::seconds{5};  ///< per question, all attempts together
  std::size_t cache_size = 1000;               ///< entries; 0 = no cache
  Blocklist blocklist;
  std::size_t max_in_flight = kMaxInFlight;
  std::size_t max_in_flight_per_source = kMaxInFlightPerSource;
};

/// Who asked: the runner's handle for where the answer goes. All but `transport` is the
/// runner's to define and comes back unchanged in the answer's Reply.
struct ClientRef {
  std::uint64_t key = 0;     ///< a UDP source address or a TCP connection
  std::uint64_t source = 0;  ///< who asks, for the per-source bound (the client's address)
  Transport transport = Transport::kUdp;
  /// What `key` cannot hold: an IPv6 UDP client's address (its port is in `key`).
  std::array<std::uint8_t, 16> reply_to{};
};

using AttemptId = std::uint64_t;

struct Actions {
  struct Reply {
    ClientRef to;
    Bytes message;
  };
  struct Send {
    AttemptId attempt;
    std::size_t upstream;  ///< index into ResolverConfig::upstreams
    Transport transport;
    Bytes message;  ///< unframed (the runner adds TCP's length prefix)
  };
  std::vector<Reply> replies;
  std::vector<Send> sends;
  std::vector<AttemptId> closes;  ///< attempts that are over: close their sockets
  bool empty() const { return replies.empty() && sends.empty() && closes.empty(); }
  void clear() {
    replies.clear();
    sends.clear();
    closes.clear();
  }
};

class Resolver {
 public:
  /// Preconditions: cfg.upstreams is not empty and has at most kMaxUpstreams entries.
  Resolver(ResolverConfig cfg, crypto::Rng& rng, Counters& counters);

  /// A message from a client (one UDP datagram or one TCP-framed message).
  void on_query(const ClientRef& from, ByteSpan msg, Instant now, Actions& out);
  /// A message that arrived on an attempt's socket.
  void on_upstream_reply(AttemptId attempt, ByteSpan msg, Instant now, Actions& out);
  /// The attempt's socket failed (refused, reset, closed before a whole answer).
  void on_upstream_error(AttemptId attempt, Instant now, Actions& out);
  /// Timeouts due at `now`.
  void on_timer(Instant now, Actions& out);
  /// When on_timer() next has something to do; nullopt when nothing is in flight.
  std::optional<Instant> next_deadline() const;
  /// The client is gone (a TCP connection closed): its questions complete (and fill the
  /// cache) but their answers are dropped.
  void forget_client(std::uint64_t key);

  std::size_t in_flight() const { return pending_.size(); }
  /// Questions of client `key` waiting for upstream (a TCP connection's pipelining bound).
  std::size_t in_flight_for(std::uint64_t key) const;
  const Cache& cache() const { return cache_; }
  /// Whether upstream `i` is held down (tests, logs).
  bool upstream_down(std::size_t i) const { return health_.at(i).down; }

 private:
  struct Attempt {
    AttemptId id = 0;
    std::size_t upstream = 0;
    Transport transport = Transport::kUdp;
    std::uint16_t wire_id = 0;
    Instant deadline;
    bool timed_out = false;
    bool probe = false;
  };
  struct Pending {
    std::uint64_t serial = 0;
    ClientRef client;
    bool orphaned = false;
    Bytes query;  ///< the client's message as it came
    Query parsed;
    std::string key;  ///< cache key
    Instant deadline;
    std::vector<Attempt> attempts;  ///< open ones
    std::uint64_t tried = 0;        ///< upstreams tried in this round (bit i)
    std::size_t sends = 0;
    std::optional<std::size_t> last_upstream;
  };
  struct Health {
    bool down = false;
    bool probing = false;
    Instant down_until;
    Duration hold{0};
  };

  void reply(Pending& p, ByteSpan answer, std::size_t question_end, Actions& out);
  void reply_now(const ClientRef& to, ByteSpan query, const Query& q, Bytes answer,
                 std::size_t question_end, Actions& out);
  void finish(std::uint64_t serial, Actions& out);
  void servfail(std::uint64_t serial, Actions& out);
  bool start_attempt(Pending& p, std::size_t upstream, Transport t, bool probe, Instant now,
                     Actions& out);
  /// The next attempt of `p` after a failure; false when none can be made.
  bool advance(Pending& p, Instant now, Actions& out);
  void close_attempt(Pending& p, AttemptId id, Actions& out);
  std::optional<std::size_t> pick(std::uint64_t tried, Instant now) const;
  bool has_untried(const Pending& p, Instant now) const;
  void health_failed(std::size_t i, Instant now);
  void health_ok(std::size_t i);
  static bool waiting(const Pending& p);

  ResolverConfig cfg_;
  crypto::Rng& rng_;
  Counters& counters_;
  Cache cache_;
  Duration attempt_timeout_;
  std::vector<Health> health_;
  std::uint64_t next_serial_ = 0;
  AttemptId next_attempt_ = 0;
  std::unordered_map<std::uint64_t, Pending> pending_;
  std::unordered_map<AttemptId, std::uint64_t> attempts_;  ///< attempt → its question
  std::unordered_map<std::uint64_t, std::size_t> per_source_;
};

}  // namespace qeli::dns
