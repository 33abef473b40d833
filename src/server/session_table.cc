#include "server/session_table.h"

#include <algorithm>

#include <spdlog/spdlog.h>

namespace qeli::server {

const char* to_string(AdmissionError e) {
  switch (e) {
    case AdmissionError::kPoolExhausted: return "address pool exhausted";
    case AdmissionError::kMaxClients: return "max_clients reached";
    case AdmissionError::kBadStaticIp: return "static address unusable";
    case AdmissionError::kStopping: return "the server is stopping";
  }
  return "?";
}

SessionTable::SessionTable(IpPool pool, std::size_t max_clients,
                           engine::SessionInbox::Geometry geometry)
    : pool_(std::move(pool)), max_clients_(max_clients), geometry_(geometry) {}

void SessionTable::unroute_locked(const std::shared_ptr<Session>& s) {
  bool was_routed = false;
  {
    std::unique_lock lock(routes_mu_);
    auto it = routes_.by_ip.find(s->tunnel_ip);
    if (it != routes_.by_ip.end() && it->second == s) {
      routes_.by_ip.erase(it);
      was_routed = true;
    }
  }
  if (was_routed && addresses_ != nullptr) addresses_->unrouted(s->tunnel_ip);
  (void)claims_->release(s.get());
}

Result<std::shared_ptr<Session>, AdmissionError> SessionTable::admit(const AdmissionRequest& req) {
  std::lock_guard lock(mu_);
  if (stopping_) return fail(AdmissionError::kStopping);
  std::optional<std::uint32_t> reuse_ip;
  // 1. Supersede the same device: the new session inherits its address.
  if (auto it = by_device_.find(req.device_key); it != by_device_.end()) {
    auto old = it->second;
    old->superseded = true;
    unroute_locked(old);
    old->end(wire::CloseReason::kSuperseded);
    reuse_ip = old->tunnel_ip;
    by_device_.erase(it);
  }
  // 3. max_sessions: evict the user's oldest other devices.
  if (req.max_sessions > 0) {
    std::vector<std::shared_ptr<Session>> mine;
    for (const auto& [k, s] : by_device_) {
      if (s->user == req.user) mine.push_back(s);
    }
    std::sort(mine.begin(), mine.end(), [](auto& a, auto& b) { return a->started < b->started; });
    while (!mine.empty() && mine.size() >= req.max_sessions) {
      auto victim = mine.front();
      mine.erase(mine.begin());
      unroute_locked(victim);
      victim->end(wire::CloseReason::kEvicted);
      by_device_.erase(victim->device_key);
      if (!victim->superseded.exchange(true)) pool_.release(victim->tunnel_ip);
    }
  }
  // 4. max_clients.
  if (max_clients_ > 0 && by_device_.size() >= max_clients_) {
    if (reuse_ip) pool_.release(*reuse_ip);
    return fail(AdmissionError::kMaxClients);
  }
  // 2/5. The address.
  std::uint32_t ip = 0;
  if (req.static_ip) {
    std::string evicted;
    if (!pool_.allocate_fixed(req.device_key, *req.static_ip, evicted)) {
      return fail(AdmissionError::kBadStaticIp);
    }
    if (reuse_ip && *reuse_ip != *req.static_ip) pool_.release(*reuse_ip);
    if (!evicted.empty()) {
      if (auto it = by_device_.find(evicted); it != by_device_.end()) {
        it->second->superseded = true;
        unroute_locked(it->second);
        it->second->end(wire::CloseReason::kSuperseded);
        by_device_.erase(it);
      }
    }
    ip = *req.static_ip;
  } else if (reuse_ip) {
    ip = *reuse_ip;  // still owned by this device key in the pool
  } else {
    auto a = pool_.allocate(req.device_key);
    if (!a) return fail(AdmissionError::kPoolExhausted);
    ip = *a;
  }
  auto s = std::make_shared<Session>(next_id_++, req.user, req.device_key, ip, req.peer, geometry_,
                                     req.max_streams);
  by_device_[req.device_key] = s;
  counted_[s->id] = s;
  {
    std::unique_lock rl(routes_mu_);
    routes_.by_ip[ip] = s;
  }
  if (addresses_ != nullptr) addresses_->routed(ip);
  const SubnetClaims::Claimed took = claims_->claim(s, req.subnets, req.subnets6, host_routes_);
  s->subnets = took.v4;
  s->subnets6 = took.v6;
  if (took.skipped > 0) {
    spdlog::warn(
        "client_subnet: {} network(s) of user {} already route to another session; "
        "not routed to this one",
        took.skipped, req.user);
  }
  return s;
}

void SessionTable::remove(const std::shared_ptr<Session>& s) {
  std::lock_guard lock(mu_);
  unroute_locked(s);
  auto it = by_device_.find(s->device_key);
  if (it != by_device_.end() && it->second == s) by_device_.erase(it);
  if (!s->superseded.exchange(true)) pool_.release(s->tunnel_ip);
  if (auto tok = by_token_.find(s->join_key); tok != by_token_.end() && tok->second == s) {
    by_token_.erase(tok);
  }
  if (counted_.erase(s->id) > 0) {
    for (std::size_t i = 0; i < retired_.size(); ++i) {
      retired_[i] += s->counters.get(static_cast<tunnel::SessionCounter>(i));
    }
  }
}

namespace {
std::string token_key(const handshake::JoinToken& t) { return {t.begin(), t.end()}; }
}  // namespace

void SessionTable::publish_join(const std::shared_ptr<Session>& s,
                                const handshake::JoinToken& token) {
  std::lock_guard lock(mu_);
  if (s->superseded.load() || s->stop.stopped()) return;
  s->join_key = token_key(token);
  by_token_[s->join_key] = s;
}

std::shared_ptr<Session> SessionTable::find_join(const handshake::JoinToken& token) const {
  std::lock_guard lock(mu_);
  const auto it = by_token_.find(token_key(token));
  if (it == by_token_.end()) return nullptr;
  // Superseded, evicted or kicked: its token died with it.
  if (it->second->superseded.load() || it->second->stop.stopped()) return nullptr;
  return it->second;
}

std::array<std::uint64_t, tunnel::SessionCounters::kSize> SessionTable::traffic_totals() const {
  std::lock_guard lock(mu_);
  auto out = retired_;
  for (const auto& [id, s] : counted_) {
    for (std::size_t i = 0; i < out.size(); ++i) {
      out[i] += s->counters.get(static_cast<tunnel::SessionCounter>(i));
    }
  }
  return out;
}

std::vector<std::shared_ptr<Session>> SessionTable::list() const {
  std::lock_guard lock(mu_);
  std::vector<std::shared_ptr<Session>> out;
  for (const auto& [k, s] : by_device_) out.push_back(s);
  std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return a->id < b->id; });
  return out;
}

std::size_t SessionTable::kick(const std::string& user, wire::CloseReason why) {
  std::lock_guard lock(mu_);
  std::size_t n = 0;
  for (const auto& [k, s] : by_device_) {
    if (s->user == user) {
      s->end(why);
      ++n;
    }
  }
  return n;
}

void SessionTable::stop_all() {
  std::lock_guard lock(mu_);
  stopping_ = true;
  for (const auto& [k, s] : by_device_) s->end(wire::CloseReason::kShutdown);
}

std::size_t SessionTable::size() const {
  std::lock_guard lock(mu_);
  return by_device_.size();
}

}  // namespace qeli::server
