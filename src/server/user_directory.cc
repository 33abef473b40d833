#include "server/user_directory.h"

namespace qeli::server {

const config::UserConfig* UserSnapshot::find(const std::string& name) const {
  for (const auto& u : users) {
    if (u.name == name) return &u;
  }
  return nullptr;
}

const config::GroupConfig* UserSnapshot::group(const std::string& name) const {
  for (const auto& g : groups) {
    if (g.name == name) return &g;
  }
  return nullptr;
}

}  // namespace qeli::server
