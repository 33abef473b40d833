#include "server/roam_index.h"

#include <cstring>

namespace qeli::server {

std::uint64_t RoamIndex::key_of(const wire::RoamCid& cid) {
  std::uint64_t k = 0;
  std::memcpy(&k, cid.data(), sizeof(k));
  return k;
}

void RoamIndex::publish(void* peer, std::size_t worker, const crypto::Key32& secret,
                        std::uint32_t from) {
  // The HMACs outside the lock.
  std::vector<std::pair<std::uint64_t, std::uint32_t>> fresh;
  fresh.reserve(wire::kRoamWindow + 1);
  for (std::uint32_t e = from; e - from <= wire::kRoamWindow; ++e) {
    fresh.emplace_back(key_of(wire::roam_cid(secret, e)), e);
  }
  std::lock_guard lock(mu_);
  auto& mine = by_peer_[peer];
  for (const std::uint64_t k : mine) {
    auto it = by_cid_.find(k);
    if (it != by_cid_.end() && it->second.peer == peer) by_cid_.erase(it);
  }
  mine.clear();
  for (const auto& [k, e] : fresh) {
    by_cid_[k] = Hit{worker, peer, e};
    mine.push_back(k);
  }
}

std::optional<RoamIndex::Hit> RoamIndex::find(const wire::RoamCid& cid) const {
  std::lock_guard lock(mu_);
  auto it = by_cid_.find(key_of(cid));
  if (it == by_cid_.end()) return std::nullopt;
  return it->second;
}

void RoamIndex::move(void* peer, std::size_t worker) {
  std::lock_guard lock(mu_);
  auto mine = by_peer_.find(peer);
  if (mine == by_peer_.end()) return;
  for (const std::uint64_t k : mine->second) {
    auto it = by_cid_.find(k);
    if (it != by_cid_.end() && it->second.peer == peer) it->second.worker = worker;
  }
}

void RoamIndex::remove(void* peer) {
  std::lock_guard lock(mu_);
  auto mine = by_peer_.find(peer);
  if (mine == by_peer_.end()) return;
  for (const std::uint64_t k : mine->second) {
    auto it = by_cid_.find(k);
    if (it != by_cid_.end() && it->second.peer == peer) by_cid_.erase(it);
  }
  by_peer_.erase(mine);
}

std::size_t RoamIndex::sessions() const {
  std::lock_guard lock(mu_);
  return by_peer_.size();
}

}  // namespace qeli::server
