#include "dns/resolver.h"

#include <algorithm>

#include "dns/writer.h"

namespace qeli::dns {
namespace {

bool retryable(Rcode rc) {
  return rc == Rcode::kServFail || rc == Rcode::kRefused || rc == Rcode::kNotImp;
}

}  // namespace

Resolver::Resolver(ResolverConfig cfg, crypto::Rng& rng, Counters& counters)
    : cfg_(std::move(cfg)),
      rng_(rng),
      counters_(counters),
      cache_(cfg_.cache_size),
      health_(cfg_.upstream_count) {
  const std::size_t share = std::min<std::size_t>(std::max<std::size_t>(cfg_.upstream_count, 1), 3);
  attempt_timeout_ = std::clamp<Duration>(cfg_.timeout / share, kMinAttemptTimeout, cfg_.timeout);
}

void Resolver::on_query(const ClientRef& from, ByteSpan msg, Instant now, Actions& out) {
  counters_.add(from.transport == Transport::kUdp ? Counter::kQueriesUdp : Counter::kQueriesTcp);
  auto q = parse_query(msg);
  if (!q) {
    counters_.add(Counter::kMalformed);
    // Never answer what claims to be a response: two resolvers could bounce it forever.
    auto h = read_header(msg);
    if (h && (h->flags & flag::kQr) == 0) {
      const Rcode rc = q.error() == ParseError::kBadOpcode ? Rcode::kNotImp : Rcode::kFormErr;
      out.replies.push_back({from, error_reply(msg, nullptr, rc)});
    }
    return;
  }
  if (cfg_.blocklist.blocks(q->question.name)) {
    counters_.add(Counter::kBlocked);
    out.replies.push_back({from, blocked_reply(msg, *q)});
    return;
  }
  std::string key = cache_key(q->question, q->dnssec_ok, (q->header.flags & flag::kCd) != 0);
  if (auto hit = cache_.lookup(key, now)) {
    counters_.add(Counter::kCacheHits);
    reply_now(from, msg, *q, std::move(hit->message), hit->question_end, out);
    return;
  }
  std::size_t& mine = per_source_[from.source];
  if (pending_.size() >= cfg_.max_in_flight || mine >= cfg_.max_in_flight_per_source) {
    if (mine == 0) per_source_.erase(from.source);
    counters_.add(Counter::kOverload);
    out.replies.push_back({from, error_reply(msg, &*q, Rcode::kServFail)});
    return;
  }
  ++mine;
  counters_.add(Counter::kForwarded);
  const std::uint64_t serial = ++next_serial_;
  Pending& p = pending_[serial];
  p.serial = serial;
  p.client = from;
  p.query.assign(msg.begin(), msg.end());
  p.parsed = std::move(*q);
  p.key = std::move(key);
  p.deadline = now + cfg_.timeout;
  const std::size_t primary = pick(0, now).value();  // tried = 0: always some upstream
  start_attempt(p, primary, cfg_.upstream_transport, false, now, out);
  // Preferred upstreams whose hold-down is over get this question too, as probes.
  for (std::size_t i = 0; i < primary; ++i) {
    Health& h = health_[i];
    if (h.down && !h.probing && now >= h.down_until &&
        start_attempt(p, i, cfg_.upstream_transport, true, now, out)) {
      h.probing = true;
    }
  }
}

void Resolver::on_upstream_reply(AttemptId attempt, ByteSpan msg, Instant now, Actions& out) {
  auto it = attempts_.find(attempt);
  if (it == attempts_.end()) {
    counters_.add(Counter::kBadReplies);  // the runner closes finished attempts: rare
    return;
  }
  const std::uint64_t serial = it->second;
  Pending& p = pending_.at(serial);
  auto at = std::find_if(p.attempts.begin(), p.attempts.end(),
                         [&](const Attempt& a) { return a.id == attempt; });
  const Attempt a = *at;
  auto r = parse_response(msg);
  if (!r || r->header.id != a.wire_id || r->question != p.parsed.question) {
    counters_.add(Counter::kBadReplies);  // spoofed, stale or broken: keep waiting
    return;
  }
  health_ok(a.upstream);
  if ((r->header.flags & flag::kTc) != 0 && a.transport == Transport::kUdp) {
    counters_.add(Counter::kTcpFallbacks);
    close_attempt(p, a.id, out);
    if (start_attempt(p, a.upstream, Transport::kTcp, false, now, out)) return;
    // Out of attempts: the truncated answer goes to the client, which retries over TCP.
  } else if (retryable(r->header.rcode()) && has_untried(p, now)) {
    close_attempt(p, a.id, out);
    if (advance(p, now, out)) return;
  }
  cache_.store(p.key, msg, *r, now);
  reply(p, msg, r->question_end, out);
  finish(serial, out);
}

void Resolver::on_upstream_error(AttemptId attempt, Instant now, Actions& out) {
  auto it = attempts_.find(attempt);
  if (it == attempts_.end()) return;
  const std::uint64_t serial = it->second;
  Pending& p = pending_.at(serial);
  auto at = std::find_if(p.attempts.begin(), p.attempts.end(),
                         [&](const Attempt& a) { return a.id == attempt; });
  counters_.add(Counter::kUpstreamErrors);
  health_failed(at->upstream, now);
  close_attempt(p, attempt, out);
  if (waiting(p)) return;  // another attempt is still within its time
  if (!advance(p, now, out) && p.attempts.empty()) servfail(serial, out);
}

void Resolver::on_timer(Instant now, Actions& out) {
  std::vector<std::uint64_t> expired;
  for (auto& [serial, p] : pending_) {
    if (now >= p.deadline) {
      expired.push_back(serial);
      continue;
    }
    bool moved = false;
    for (Attempt& a : p.attempts) {
      if (a.timed_out || now < a.deadline) continue;
      a.timed_out = true;
      moved = true;
      counters_.add(Counter::kUpstreamTimeouts);
      health_failed(a.upstream, now);
    }
    // The late attempts stay open (their answer still counts); a new one starts.
    if (moved && !waiting(p)) advance(p, now, out);
  }
  for (const std::uint64_t s : expired) servfail(s, out);
}

std::optional<Instant> Resolver::next_deadline() const {
  std::optional<Instant> next;
  auto take = [&](Instant t) {
    if (!next || t < *next) next = t;
  };
  for (const auto& [serial, p] : pending_) {
    take(p.deadline);
    for (const Attempt& a : p.attempts) {
      if (!a.timed_out) take(a.deadline);
    }
  }
  return next;
}

std::size_t Resolver::in_flight_for(std::uint64_t key) const {
  std::size_t n = 0;
  for (const auto& [serial, p] : pending_) n += p.client.key == key && !p.orphaned ? 1 : 0;
  return n;
}

void Resolver::forget_client(std::uint64_t key) {
  for (auto& [serial, p] : pending_) {
    if (p.client.key == key) p.orphaned = true;
  }
}

void Resolver::reply(Pending& p, ByteSpan answer, std::size_t question_end, Actions& out) {
  if (p.orphaned) return;
  reply_now(p.client, p.query, p.parsed, Bytes(answer.begin(), answer.end()), question_end, out);
}

void Resolver::reply_now(const ClientRef& to, ByteSpan query, const Query& q, Bytes answer,
                         std::size_t question_end, Actions& out) {
  address_reply(answer, question_end, query, q);
  if (to.transport == Transport::kUdp && answer.size() > q.udp_limit()) {
    counters_.add(Counter::kTruncated);
    answer = truncated_reply(answer, question_end);
  }
  out.replies.push_back({to, std::move(answer)});
}

void Resolver::finish(std::uint64_t serial, Actions& out) {
  auto it = pending_.find(serial);
  Pending& p = it->second;
  for (const Attempt& a : p.attempts) {
    if (a.probe) health_[a.upstream].probing = false;
    attempts_.erase(a.id);
    out.closes.push_back(a.id);
  }
  if (auto s = per_source_.find(p.client.source); s != per_source_.end() && --s->second == 0) {
    per_source_.erase(s);
  }
  pending_.erase(it);
}

void Resolver::servfail(std::uint64_t serial, Actions& out) {
  Pending& p = pending_.at(serial);
  counters_.add(Counter::kServfail);
  if (!p.orphaned) {
    out.replies.push_back({p.client, error_reply(p.query, &p.parsed, Rcode::kServFail)});
  }
  finish(serial, out);
}

bool Resolver::start_attempt(Pending& p, std::size_t upstream, Transport t, bool probe, Instant now,
                             Actions& out) {
  if (p.sends >= kMaxAttemptsPerQuery) return false;
  std::uint8_t id[2];
  rng_.fill(id);
  Attempt a;
  a.id = ++next_attempt_;
  a.upstream = upstream;
  a.transport = t;
  a.wire_id = static_cast<std::uint16_t>((id[0] << 8) | id[1]);
  a.deadline = now + attempt_timeout_;
  a.probe = probe;
  Bytes msg = p.query;
  set_id(msg, a.wire_id);
  p.attempts.push_back(a);
  p.tried |= std::uint64_t{1} << upstream;
  ++p.sends;
  if (!probe) p.last_upstream = upstream;
  attempts_.emplace(a.id, p.serial);
  counters_.add(Counter::kUpstreamSends);
  out.sends.push_back({a.id, upstream, t, std::move(msg)});
  return true;
}

bool Resolver::advance(Pending& p, Instant now, Actions& out) {
  std::optional<std::size_t> u = pick(p.tried, now);
  if (!u) {
    p.tried = 0;  // every upstream tried once: another round (a retransmission)
    u = pick(0, now);
  }
  if (p.last_upstream && *u != *p.last_upstream) counters_.add(Counter::kFailovers);
  return start_attempt(p, *u, cfg_.upstream_transport, false, now, out);
}

void Resolver::close_attempt(Pending& p, AttemptId id, Actions& out) {
  auto at = std::find_if(p.attempts.begin(), p.attempts.end(),
                         [&](const Attempt& a) { return a.id == id; });
  if (at == p.attempts.end()) return;
  if (at->probe) health_[at->upstream].probing = false;
  p.attempts.erase(at);
  attempts_.erase(id);
  out.closes.push_back(id);
}

std::optional<std::size_t> Resolver::pick(std::uint64_t tried, Instant now) const {
  std::optional<std::size_t> due, soonest;
  for (std::size_t i = 0; i < health_.size(); ++i) {
    if ((tried >> i) & 1U) continue;
    const Health& h = health_[i];
    if (!h.down) return i;
    if (!due && now >= h.down_until) due = i;
    if (!soonest || h.down_until < health_[*soonest].down_until) soonest = i;
  }
  return due ? due : soonest;
}

bool Resolver::has_untried(const Pending& p, Instant now) const {
  return p.sends < kMaxAttemptsPerQuery && pick(p.tried, now).has_value();
}

void Resolver::health_failed(std::size_t i, Instant now) {
  Health& h = health_[i];
  if (h.down && now < h.down_until) return;  // already held down: one failure per period
  h.hold = h.down ? std::min<Duration>(h.hold * 2, kMaxHoldDown) : Duration{kMinHoldDown};
  h.down = true;
  h.down_until = now + h.hold;
}

void Resolver::health_ok(std::size_t i) {
  Health& h = health_[i];
  h.down = false;
  h.hold = Duration{0};
}

bool Resolver::waiting(const Pending& p) {
  return std::any_of(p.attempts.begin(), p.attempts.end(),
                     [](const Attempt& a) { return !a.timed_out; });
}

}  // namespace qeli::dns
