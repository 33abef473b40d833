#include "server/reload_verdict.h"

#include <algorithm>

namespace qeli::server {

std::optional<ReloadVerdict> reload_verdict(const config::UserConfig* before,
                                            const config::UserConfig* after,
                                            const std::string& profile, const std::string& device) {
  if (after == nullptr)
    return ReloadVerdict{wire::CloseReason::kCredentialsChanged, "removed from the config"};
  if (!after->enabled) return ReloadVerdict{wire::CloseReason::kDisabled, "disabled in the config"};
  if (!device.empty()) {
    const auto* was = before != nullptr ? before->find_device(device) : nullptr;
    const auto* now = after->find_device(device);
    if (now == nullptr) return ReloadVerdict{wire::CloseReason::kDisabled, "device revoked"};
    if (was != nullptr && was->phc != now->phc) {
      return ReloadVerdict{wire::CloseReason::kCredentialsChanged, "device credential changed"};
    }
  } else if (before != nullptr && before->password_hash != after->password_hash) {
    return ReloadVerdict{wire::CloseReason::kCredentialsChanged, "password changed"};
  }
  if (!after->profiles.empty() &&
      std::find(after->profiles.begin(), after->profiles.end(), profile) == after->profiles.end()) {
    return ReloadVerdict{wire::CloseReason::kDisabled, "no longer allowed on this profile"};
  }
  return std::nullopt;
}

}  // namespace qeli::server
