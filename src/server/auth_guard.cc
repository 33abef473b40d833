#include "server/auth_guard.h"

#include <algorithm>
#include <thread>

#include "crypto/argon2id.h"

namespace qeli::server {
namespace {

constexpr std::size_t kMaxTracked = 100'000;  // bound memory under a spray of sources
constexpr auto kTarpitBase = std::chrono::milliseconds(200);
constexpr auto kTarpitCap = std::chrono::milliseconds(3000);

// A fixed, valid hash of a random password, verified for unknown users so they cost the
// same as known ones.
const std::string& dummy_hash() {
  static const std::string h = crypto::argon2id_hash("qeli-dummy-password-for-timing").value();
  return h;
}

}  // namespace

AuthGuard::AuthGuard(BruteForcePolicy policy)
    : policy_(policy),
      gate_width_(std::clamp<std::uint64_t>(std::thread::hardware_concurrency(), 2, 8)),
      budget_(kPendingPerVerifier * gate_width_) {
  (void)dummy_hash();  // computed once at start-up, not on a stranger's first attempt
}

std::size_t AuthGuard::PairHash::operator()(const PairKey& k) const {
  return std::hash<std::string>()(k.user) ^ (std::hash<SourceKey>()(k.ip) * 0x9e3779b97f4a7c15ULL);
}

void AuthGuard::bump(Record& r, Instant now) const {
  if (r.failures == 0 || now - r.window_start > policy_.window) {
    r.failures = 0;
    r.window_start = now;
  }
  ++r.failures;
}

bool AuthGuard::locked_out(SourceKey ip, Instant now) {
  if (!policy_.enabled) return false;
  std::lock_guard lock(mu_);
  auto it = ips_.find(ip);
  return it != ips_.end() && now < it->second.locked_until;
}

bool AuthGuard::locked_out(SourceKey ip, const std::string& user, Instant now) {
  if (!policy_.enabled) return false;
  std::lock_guard lock(mu_);
  if (auto it = ips_.find(ip); it != ips_.end() && now < it->second.locked_until) return true;
  auto it = pairs_.find(PairKey{ip, user.substr(0, 64)});
  return it != pairs_.end() && now < it->second.locked_until;
}

Duration AuthGuard::tarpit(const std::string& user, Instant now) {
  if (!policy_.enabled) return Duration::zero();
  std::lock_guard lock(mu_);
  auto it = users_.find(user.substr(0, 64));
  if (it == users_.end()) return Duration::zero();
  Record& r = it->second;
  if (now - r.window_start > policy_.window) return Duration::zero();
  if (r.failures < policy_.max_attempts) return Duration::zero();
  const std::uint32_t over = std::min<std::uint32_t>(r.failures - policy_.max_attempts, 10);
  return std::min<Duration>(kTarpitBase * (1U << over), kTarpitCap);
}

bool AuthGuard::record_failure(SourceKey ip, const std::string& user, Instant now) {
  if (!policy_.enabled) return false;
  std::lock_guard lock(mu_);
  // Returns true if `r` crossed `limit` just now (a new lockout, not a longer one).
  auto count = [&](Record& r, std::uint32_t limit) {
    bump(r, now);
    if (r.failures < limit) return false;
    const bool fresh = now >= r.locked_until;
    r.locked_until = now + policy_.lockout;
    return fresh;
  };
  const std::string name = user.substr(0, 64);
  bool locked = false;
  if (ips_.size() < kMaxTracked || ips_.count(ip)) {
    locked |= count(ips_[ip],
                    policy_.per_address_only ? policy_.max_attempts : policy_.address_max_attempts);
  }
  if (!policy_.per_address_only) {
    PairKey key{ip, name};
    if (pairs_.size() < kMaxTracked || pairs_.count(key)) {
      locked |= count(pairs_[key], policy_.max_attempts);
    }
  }
  if (users_.size() < kMaxTracked || users_.count(name)) bump(users_[name], now);
  return locked;
}

void AuthGuard::record_success(SourceKey ip, const std::string& user) {
  std::lock_guard lock(mu_);
  const std::string name = user.substr(0, 64);
  if (policy_.per_address_only) {
    ips_.erase(ip);  // 0.7.16: a success clears the address
  } else {
    pairs_.erase(PairKey{ip, name});
  }
  users_.erase(name);
}

bool AuthGuard::verify_password(const std::string& phc, const std::string& password) {
  {
    // Ticket t may run once fewer than gate_width_ of the tickets before it are still
    // running: t < finished + width. Tickets pass in order, and at most width run.
    std::unique_lock lock(gate_mu_);
    const std::uint64_t ticket = gate_issued_++;
    gate_cv_.wait(lock, [&] { return ticket < gate_finished_ + gate_width_; });
  }
  // Finished however the verification ends (an exception too): a lost ticket would
  // narrow the gate for good.
  struct Finish {
    AuthGuard& g;
    ~Finish() {
      {
        std::lock_guard lock(g.gate_mu_);
        ++g.gate_finished_;
      }
      g.gate_cv_.notify_all();  // the next ticket in line, whichever thread holds it
    }
  } finish{*this};
  if (phc.empty()) {
    (void)crypto::argon2id_verify(dummy_hash(), password);
    return false;
  }
  return crypto::argon2id_verify(phc, password);
}

std::vector<AuthGuard::Blocked> AuthGuard::blocked(Instant now) {
  std::vector<Blocked> out;
  {
    std::lock_guard lock(mu_);
    for (const auto& [ip, r] : ips_) {
      if (now < r.locked_until) out.push_back({ip, "", r.locked_until - now, r.failures});
    }
    for (const auto& [k, r] : pairs_) {
      if (now < r.locked_until) out.push_back({k.ip, k.user, r.locked_until - now, r.failures});
    }
  }
  std::sort(out.begin(), out.end(), [](const Blocked& a, const Blocked& b) {
    return a.ip != b.ip ? a.ip < b.ip : a.user < b.user;
  });
  return out;
}

std::size_t AuthGuard::locked_count(Instant now) { return blocked(now).size(); }

bool AuthGuard::unblock(SourceKey ip) {
  std::lock_guard lock(mu_);
  bool found = ips_.erase(ip) > 0;
  for (auto it = pairs_.begin(); it != pairs_.end();) {
    if (it->first.ip == ip) {
      it = pairs_.erase(it);
      found = true;
    } else {
      ++it;
    }
  }
  return found;
}

void AuthGuard::unblock_all() {
  std::lock_guard lock(mu_);
  ips_.clear();
  pairs_.clear();
  users_.clear();
}

}  // namespace qeli::server
