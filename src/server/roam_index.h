// RoamIndex: a UDP profile's roaming connection ids (wire/roam_nonce.h) → the session
// they belong to, shared by the profile's SO_REUSEPORT workers (docs/PROTOCOL.md §20).
//
// A worker that receives a datagram from an address it does not know reads the CID out
// of the record's nonce and asks here; the answer names the worker that owns the session
// (the kernel may hash the new address to another worker) and an opaque pointer that
// only that worker dereferences. Each session has the CIDs of epochs n … n + kRoamWindow
// indexed; a migration at epoch m moves the window to m … m + kRoamWindow.
//
// Thread-safe (one mutex; no caller is on the per-packet path: only datagrams from
// unknown addresses, session starts, ends and migrations come here).
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include "crypto/secret_bytes.h"
#include "wire/roam_nonce.h"

namespace qeli::server {

class RoamIndex {
 public:
  struct Hit {
    std::size_t worker = 0;  ///< the owning worker's index
    void* peer = nullptr;    ///< the owner's object; only the owner dereferences it
    std::uint32_t epoch = 0;
  };

  /// Indexes epochs from … from + kRoamWindow of `secret` for `peer`, now owned by
  /// `worker`, replacing the peer's earlier CIDs. A CID that collides with another
  /// session's (2^-64) takes the newer one.
  void publish(void* peer, std::size_t worker, const crypto::Key32& secret, std::uint32_t from);
  /// The session a CID belongs to, if any.
  std::optional<Hit> find(const wire::RoamCid& cid) const;
  /// The peer now lives on `worker`.
  void move(void* peer, std::size_t worker);
  /// Forgets the peer's CIDs (its session ended).
  void remove(void* peer);
  /// Indexed sessions.
  std::size_t sessions() const;

 private:
  static std::uint64_t key_of(const wire::RoamCid& cid);
  mutable std::mutex mu_;
  std::unordered_map<std::uint64_t, Hit> by_cid_;
  std::unordered_map<void*, std::vector<std::uint64_t>> by_peer_;
};

}  // namespace qeli::server
