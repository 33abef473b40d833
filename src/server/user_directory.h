// UserDirectory: the users and groups a server authenticates against, replaceable at
// run time (SIGHUP reload) without disturbing lookups in flight: readers take a
// snapshot (shared_ptr) and keep it for the whole authentication. Thread-safe.
#pragma once

#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "config/server_config.h"

namespace qeli::server {

struct UserSnapshot {
  std::vector<config::UserConfig> users;
  std::vector<config::GroupConfig> groups;
  const config::UserConfig* find(const std::string& name) const;
  const config::GroupConfig* group(const std::string& name) const;
};

class UserDirectory {
 public:
  explicit UserDirectory(UserSnapshot s)
      : snap_(std::make_shared<const UserSnapshot>(std::move(s))) {}
  std::shared_ptr<const UserSnapshot> snapshot() const {
    std::lock_guard lock(mu_);
    return snap_;
  }
  void replace(UserSnapshot s) {
    auto n = std::make_shared<const UserSnapshot>(std::move(s));
    std::lock_guard lock(mu_);
    snap_ = std::move(n);
  }

  /// `qeli disable-user` / `enable-user`: an operator's switch on top of the config's
  /// `enabled`, kept in memory (it survives a reload, not a restart; docs/OPERATIONS.md).
  /// disable() returns false if it was already disabled; enable() false if it was not.
  bool disable(const std::string& name) {
    std::lock_guard lock(mu_);
    return disabled_.insert(name).second;
  }
  bool enable(const std::string& name) {
    std::lock_guard lock(mu_);
    return disabled_.erase(name) > 0;
  }
  bool disabled(const std::string& name) const {
    std::lock_guard lock(mu_);
    return disabled_.count(name) > 0;
  }
  /// The `user.expired` event: true the first time it is claimed for `name` in this run
  /// (one server-wide set, so a user refused on several profiles is announced once).
  bool claim_expired_event(const std::string& name) {
    std::lock_guard lock(mu_);
    return expired_announced_.insert(name).second;
  }

 private:
  mutable std::mutex mu_;
  std::shared_ptr<const UserSnapshot> snap_;
  std::set<std::string> disabled_;
  std::set<std::string> expired_announced_;
};

}  // namespace qeli::server
