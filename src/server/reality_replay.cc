#include "server/reality_replay.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace qeli::server {
namespace {

constexpr std::size_t kRecord = wire::kRealityTokenSize + 8;

}  // namespace

std::size_t RealityReplayCache::Hash::operator()(const wire::RealityToken& t) const {
  std::size_t h = 0;
  std::memcpy(&h, t.data(), sizeof h);  // the token is uniformly random
  return h;
}

RealityReplayCache::RealityReplayCache(std::uint64_t ttl_secs, std::size_t max_entries)
    : ttl_(ttl_secs), max_(max_entries) {}

Status<std::string> RealityReplayCache::attach(const std::string& path, std::uint64_t now) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return fail(path + ": " + std::strerror(errno));
  transport::UniqueFd f(fd);
  std::vector<std::uint8_t> rec(kRecord);
  std::lock_guard lock(mu_);
  for (;;) {
    const ssize_t n = ::read(fd, rec.data(), rec.size());
    if (n <= 0) break;
    if (static_cast<std::size_t>(n) != kRecord) break;  // a torn last record: ignored
    Entry e{};
    std::memcpy(e.token.data(), rec.data(), e.token.size());
    for (int i = 7; i >= 0; --i) e.expires = (e.expires << 8) | rec[wire::kRealityTokenSize + i];
    if (e.expires <= now || e.expires > now + ttl_ || seen_.count(e.token) != 0) continue;
    seen_.insert(e.token);
    order_.push_back(e);
  }
  file_ = std::move(f);
  compact();  // rewrites just the live entries
  return {};
}

void RealityReplayCache::append(const Entry& e) {
  if (!file_.valid()) return;
  std::uint8_t rec[kRecord];
  std::memcpy(rec, e.token.data(), e.token.size());
  for (int i = 0; i < 8; ++i)
    rec[wire::kRealityTokenSize + i] = static_cast<std::uint8_t>(e.expires >> (8 * i));
  if (::pwrite(file_.get(), rec, kRecord, static_cast<off_t>(file_entries_ * kRecord)) ==
      static_cast<ssize_t>(kRecord)) {
    ++file_entries_;
  }
  if (file_entries_ > 2 * order_.size() + 1024) compact();
}

void RealityReplayCache::compact() {
  if (!file_.valid()) return;
  std::vector<std::uint8_t> all;
  all.reserve(order_.size() * kRecord);
  for (const Entry& e : order_) {
    all.insert(all.end(), e.token.begin(), e.token.end());
    for (int i = 0; i < 8; ++i) all.push_back(static_cast<std::uint8_t>(e.expires >> (8 * i)));
  }
  if (!all.empty() &&
      ::pwrite(file_.get(), all.data(), all.size(), 0) != static_cast<ssize_t>(all.size())) {
    return;  // keep the old (longer) file: it is a superset
  }
  if (::ftruncate(file_.get(), static_cast<off_t>(all.size())) == 0) file_entries_ = order_.size();
}

void RealityReplayCache::expire(std::uint64_t now) {
  while (!order_.empty() && (order_.front().expires <= now || order_.size() > max_)) {
    seen_.erase(order_.front().token);
    order_.pop_front();
  }
}

bool RealityReplayCache::observe(const wire::RealityToken& token, std::uint64_t now) {
  std::lock_guard lock(mu_);
  expire(now);
  if (seen_.count(token) != 0) return false;
  const Entry e{token, now + ttl_};
  seen_.insert(token);
  order_.push_back(e);
  expire(now);  // the size bound
  append(e);
  return true;
}

std::size_t RealityReplayCache::size() const {
  std::lock_guard lock(mu_);
  return order_.size();
}

}  // namespace qeli::server
