#include "server/ip_pool.h"

#include <algorithm>

namespace qeli::server {

IpPool::IpPool(std::uint32_t network, std::uint8_t prefix, std::uint32_t server_ip,
               std::vector<std::pair<std::uint32_t, std::uint8_t>> excluded)
    : server_ip_(server_ip) {
  const std::uint32_t mask = prefix == 0 ? 0 : ~std::uint32_t{0} << (32 - prefix);
  const std::uint32_t net = network & mask;
  const std::uint32_t bcast = net | ~mask;
  if (prefix >= 31) {
    first_ = net;
    last_ = bcast;
  } else {
    first_ = net + 1;
    last_ = bcast - 1;
  }
  for (const auto& [addr, len] : excluded) {
    const std::uint32_t m = len == 0 ? 0 : ~std::uint32_t{0} << (32 - len);
    excluded_.emplace_back(addr & m, (addr & m) | ~m);
  }
  for (std::uint64_t ip = first_; ip <= last_; ++ip) {
    if (assignable(static_cast<std::uint32_t>(ip))) ++capacity_;
  }
  next_unused_ = first_;
}

bool IpPool::contains(std::uint32_t ip) const { return ip >= first_ && ip <= last_; }

bool IpPool::assignable(std::uint32_t ip) const {
  if (!contains(ip) || ip == server_ip_) return false;
  for (const auto& [lo, hi] : excluded_) {
    if (ip >= lo && ip <= hi) return false;
  }
  return true;
}

std::optional<std::uint32_t> IpPool::allocate(const std::string& device_key) {
  auto take = [&](std::uint32_t ip) {
    owner_[ip] = device_key;
    sticky_[device_key] = ip;
    freed_.erase(std::remove(freed_.begin(), freed_.end(), ip), freed_.end());
    return ip;
  };
  if (auto it = sticky_.find(device_key); it != sticky_.end()) {
    if (!in_use(it->second) && assignable(it->second)) return take(it->second);
  }
  // Freed stack, skipping addresses another device is sticky to while one is still free.
  while (!freed_.empty()) {
    const std::uint32_t ip = freed_.back();
    freed_.pop_back();
    if (!in_use(ip) && assignable(ip)) return take(ip);
  }
  while (next_unused_ <= last_ && next_unused_ >= first_) {
    const std::uint32_t ip = next_unused_;
    if (next_unused_ == last_) {
      next_unused_ = first_ - 1;  // exhausted (first_ > 0 for any real pool)
    } else {
      ++next_unused_;
    }
    if (!in_use(ip) && assignable(ip)) return take(ip);
  }
  // Everything has been used once: scan for any free address.
  for (std::uint64_t ip = first_; ip <= last_; ++ip) {
    const auto a = static_cast<std::uint32_t>(ip);
    if (!in_use(a) && assignable(a)) return take(a);
  }
  return std::nullopt;
}

bool IpPool::allocate_fixed(const std::string& device_key, std::uint32_t ip, std::string& evicted) {
  evicted.clear();
  if (ip == server_ip_) return false;
  if (auto it = owner_.find(ip); it != owner_.end()) {
    if (it->second != device_key) evicted = it->second;
  }
  owner_[ip] = device_key;
  sticky_[device_key] = ip;
  freed_.erase(std::remove(freed_.begin(), freed_.end(), ip), freed_.end());
  return true;
}

void IpPool::release(std::uint32_t ip) {
  if (owner_.erase(ip) != 0 && assignable(ip)) freed_.push_back(ip);
}

}  // namespace qeli::server
