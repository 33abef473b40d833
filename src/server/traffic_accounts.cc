#include "server/traffic_accounts.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>

namespace qeli::server {

std::uint64_t UserLimits::rate_of(double mbps) {
  return mbps <= 0 ? 0 : static_cast<std::uint64_t>(std::llround(mbps * 125'000.0));
}

std::uint64_t UserLimits::burst_of(double burst_mbps, std::uint64_t rate) {
  if (burst_mbps > 0) return std::max<std::uint64_t>(rate_of(burst_mbps), 1);
  return std::max<std::uint64_t>(rate / 8, 64 * 1024);
}

UserLimits UserLimits::of(const config::UserConfig& u, const config::GroupConfig* g) {
  UserLimits l;
  const double mbps =
      u.bandwidth_limit_mbps > 0 ? u.bandwidth_limit_mbps : (g ? g->bandwidth_limit_mbps : 0);
  l.rate = rate_of(mbps);
  l.burst = burst_of(u.bandwidth_burst_mbps, l.rate);
  if (u.data_limit_gb > 0)
    l.quota = static_cast<std::uint64_t>(std::llround(u.data_limit_gb * 1e9));
  return l;
}

TrafficAccounts::TrafficAccounts(std::unique_ptr<UsageStore> store, const UserSnapshot& users,
                                 std::chrono::seconds flush_every)
    : store_(std::move(store)),
      users_(std::make_shared<const UserSnapshot>(users)),
      flush_every_(flush_every) {
  if (store_) {
    auto rows = store_->load();
    if (rows.ok()) {
      for (auto& r : *rows) stored_[r.user] = r;
    } else {
      spdlog::error("usage store: {}; totals start from zero", rows.error());
    }
    flusher_ = std::thread([this] { flusher(); });
  }
}

TrafficAccounts::~TrafficAccounts() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (flusher_.joinable()) flusher_.join();
  flush();
}

void TrafficAccounts::apply_locked(const std::string& user, engine::TrafficAccount& a) const {
  UserLimits l;
  if (const auto* u = users_->find(user)) {
    l = UserLimits::of(*u, u->group.empty() ? nullptr : users_->group(u->group));
  }
  if (auto it = overrides_.find(user); it != overrides_.end()) {
    l.rate = UserLimits::rate_of(it->second);
    const auto* u = users_->find(user);
    l.burst = UserLimits::burst_of(u ? u->bandwidth_burst_mbps : 0, l.rate);
  }
  a.set_rate(l.rate, l.burst);
  a.set_quota(l.quota);
}

std::shared_ptr<engine::TrafficAccount> TrafficAccounts::account(const std::string& user) {
  std::lock_guard lock(mu_);
  if (auto it = accounts_.find(user); it != accounts_.end()) return it->second;
  std::uint64_t down = 0, up = 0;
  if (auto it = stored_.find(user); it != stored_.end()) {
    down = it->second.down_bytes;
    up = it->second.up_bytes;
  }
  auto a = std::make_shared<engine::TrafficAccount>(down, up);
  apply_locked(user, *a);
  accounts_.emplace(user, a);
  return a;
}

void TrafficAccounts::apply(const UserSnapshot& users) {
  std::lock_guard lock(mu_);
  users_ = std::make_shared<const UserSnapshot>(users);
  for (auto& [name, a] : accounts_) apply_locked(name, *a);
}

bool TrafficAccounts::set_bandwidth(const std::string& user, double mbps) {
  std::shared_ptr<engine::TrafficAccount> a;
  {
    std::lock_guard lock(mu_);
    if (users_->find(user) == nullptr) return false;
    overrides_[user] = mbps;
  }
  a = account(user);
  std::lock_guard lock(mu_);
  apply_locked(user, *a);
  return true;
}

std::vector<UsageRow> TrafficAccounts::usage() const {
  std::lock_guard lock(mu_);
  std::map<std::string, UsageRow> rows;
  for (const auto& [name, r] : stored_) {
    rows[name] = UsageRow{name, r.down_bytes, r.up_bytes};
  }
  for (const auto& [name, a] : accounts_) {
    rows[name] = UsageRow{name,       a->down_total(), a->up_total(),
                          a->quota(), a->rate(),       overrides_.count(name) > 0};
  }
  for (const auto& u : users_->users) {
    auto& r = rows[u.name];
    r.user = u.name;
    if (accounts_.count(u.name) == 0) {
      const auto l = UserLimits::of(u, u.group.empty() ? nullptr : users_->group(u.group));
      r.quota = l.quota;
      r.rate = l.rate;
    }
  }
  std::vector<UsageRow> out;
  for (auto& [n, r] : rows) out.push_back(std::move(r));
  return out;
}

bool TrafficAccounts::reset(const std::string& user) {
  std::lock_guard f(flush_mu_);  // a save in flight must not write the old totals back
  {
    std::lock_guard lock(mu_);
    const bool known =
        users_->find(user) != nullptr || accounts_.count(user) > 0 || stored_.count(user) > 0;
    if (!known) return false;
    if (auto it = accounts_.find(user); it != accounts_.end()) it->second->reset_totals();
    stored_.erase(user);
  }
  if (store_) {
    if (auto st = store_->reset(user); !st.ok()) spdlog::error("usage store: {}", st.error());
  }
  return true;
}

void TrafficAccounts::flush() {
  if (!store_) return;
  std::lock_guard f(flush_mu_);
  std::vector<UsageRecord> rows;
  {
    std::lock_guard lock(mu_);
    for (const auto& [name, a] : accounts_) {
      rows.push_back(UsageRecord{name, a->down_total(), a->up_total(), 0});
    }
  }
  if (rows.empty()) return;
  if (auto st = store_->save(rows); !st.ok()) spdlog::error("usage store: {}", st.error());
}

void TrafficAccounts::flusher() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    cv_.wait_for(lock, flush_every_, [this] { return stopping_; });
    if (stopping_) break;
    lock.unlock();
    flush();
    lock.lock();
  }
}

}  // namespace qeli::server
