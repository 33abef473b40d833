// UserDirectory: the users and groups a server authenticates against, replaceable at
// run time (SIGHUP reload) without disturbing lookups in flight: readers take a
// snapshot (shared_ptr) and keep it for the whole authentication.
#pragma once

#include <memory>
#include <mutex>
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

 private:
  mutable std::mutex mu_;
  std::shared_ptr<const UserSnapshot> snap_;
};

}  // namespace qeli::server
