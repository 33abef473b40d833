#include "server/udp_half_open.h"

#include <algorithm>

namespace qeli::server {

UdpHalfOpenTable::UdpHalfOpenTable(std::size_t capacity)
    : capacity_(std::max<std::size_t>(1, capacity)) {}

UdpHalfOpen* UdpHalfOpenTable::find(const transport::SockAddr& addr) {
  auto it = map_.find(addr);
  return it == map_.end() ? nullptr : &it->second;
}

UdpHalfOpen& UdpHalfOpenTable::insert(const transport::SockAddr& addr,
                                      std::unique_ptr<handshake::UdpServerHandshake> hs,
                                      Instant now, bool& evicted) {
  evicted = false;
  if (map_.size() >= capacity_) {
    evict_one();
    evicted = true;
  }
  UdpHalfOpen h;
  h.hs = std::move(hs);
  h.serial = next_serial_++;
  h.created = now;
  return map_.insert_or_assign(addr, std::move(h)).first->second;
}

void UdpHalfOpenTable::evict_one() {
  // A linear scan: eviction only happens under a flood, and 1024 entries are a few µs.
  auto oldest = map_.begin(), oldest_idle = map_.end();
  for (auto j = map_.begin(); j != map_.end(); ++j) {
    if (j->second.created < oldest->second.created) oldest = j;
    if (!j->second.hs->has_hello() &&
        (oldest_idle == map_.end() || j->second.created < oldest_idle->second.created)) {
      oldest_idle = j;
    }
  }
  map_.erase(oldest_idle != map_.end() ? oldest_idle : oldest);
}

}  // namespace qeli::server
