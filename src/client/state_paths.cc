#include "client/state_paths.h"

#include <spdlog/spdlog.h>

#include "sys/netns_identity.h"

namespace qeli::client {

StatePaths state_paths(const std::string& state_dir, const std::string& dev,
                       const std::string& netns_suffix) {
  const std::string dir = state_dir.empty() ? kDefaultStateDir : state_dir;
  return {dir + "/journal-" + dev + netns_suffix + ".log",
          dir + "/resolv.conf.backup" + netns_suffix};
}

StatePaths current_state_paths(const std::string& state_dir, const std::string& dev) {
  std::string suffix;
  if (auto ns = sys::current_netns(); ns.ok()) {
    suffix = sys::netns_suffix(*ns);
  } else {
    spdlog::warn("network namespace unknown ({}): using the host's state paths", ns.error().detail);
  }
  return state_paths(state_dir, dev, suffix);
}

}  // namespace qeli::client
