// IpPool: hands out tunnel IPv4 addresses from a profile's pool (qeli 0.7.16 `pool.rs`).
//
// * The usable hosts of `pool.cidr`, minus the server's own address and `pool.exclude`.
// * Sticky: a device key (`user:hex(device_id)`) gets the address it had last time if
//   that address is free (so a reconnecting client keeps its IP).
// * Static: `allocate_fixed` takes a reserved / `static_ip` address, even from whoever
//   holds it (the caller kicks that session), as 0.7.16 does.
// * Freed addresses are reused most-recently-freed first, after the never-used ones run
//   out... (0.7.16: "freed-stack first") — we keep 0.7.16's order: freed stack first.
//
// Not thread-safe: the session table serialises access.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace qeli::server {

class IpPool {
 public:
  /// `network`/`prefix` (host order); `server_ip` and `excluded` are never handed out.
  IpPool(std::uint32_t network, std::uint8_t prefix, std::uint32_t server_ip,
         std::vector<std::pair<std::uint32_t, std::uint8_t>> excluded = {});

  /// An address for `device_key`: its sticky address if free, else a freed one, else the
  /// lowest never-used one. nullopt when the pool is exhausted.
  std::optional<std::uint32_t> allocate(const std::string& device_key);

  /// Takes `ip` for `device_key`. Returns the device key that held it (to be kicked) or
  /// an empty string. False if `ip` is outside the pool or reserved for the server.
  bool allocate_fixed(const std::string& device_key, std::uint32_t ip, std::string& evicted);

  /// Returns `ip` to the pool (sticky memory for its device key is kept).
  void release(std::uint32_t ip);

  bool in_use(std::uint32_t ip) const { return owner_.count(ip) != 0; }
  bool contains(std::uint32_t ip) const;
  std::size_t capacity() const { return capacity_; }
  std::size_t used() const { return owner_.size(); }

 private:
  bool assignable(std::uint32_t ip) const;

  std::uint32_t first_ = 0, last_ = 0;  // usable host range
  std::uint32_t server_ip_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> excluded_;  // [lo, hi]
  std::size_t capacity_ = 0;
  std::uint32_t next_unused_;
  std::vector<std::uint32_t> freed_;
  std::map<std::uint32_t, std::string> owner_;
  std::map<std::string, std::uint32_t> sticky_;
};

}  // namespace qeli::server
