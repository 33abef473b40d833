#include "client/state_paths.h"

#include <spdlog/spdlog.h>

#include "sys/netns_identity.h"

namespace qeli::client {

StatePaths state_paths(const std::string& state_dir, const std::string& dev,
                       const std::string& netns_suffix) {
  const std::string dir = state_dir.empty() ? kDefaultStateDir : state_dir;
  const bool classic = dev == kDefaultDev && netns_suffix.empty();
  return {dir + "/journal-" + dev + netns_suffix + ".log",
          dir + "/resolv.conf.backup" + netns_suffix,
          dir + "/device-id" + (classic ? std::string() : "-" + dev + netns_suffix)};
}

std::optional<JournalName> parse_journal_name(const std::string& name) {
  constexpr std::string_view kPrefix = "journal-", kSuffix = ".log";
  if (name.size() <= kPrefix.size() + kSuffix.size() || !name.starts_with(kPrefix) ||
      !name.ends_with(kSuffix)) {
    return std::nullopt;
  }
  const std::string mid =
      name.substr(kPrefix.size(), name.size() - kPrefix.size() - kSuffix.size());
  const auto at = mid.find('@');
  JournalName j{mid.substr(0, at), at == std::string::npos ? "" : mid.substr(at)};
  if (j.dev.empty()) return std::nullopt;
  return j;
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
