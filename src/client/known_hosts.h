// KnownHosts: the client's trust-on-first-use store of server identity keys
// (qeli 0.7.16 §6.3): lines `<host:port> <64 lower-case hex>`, file mode 0600, default
// /var/lib/qeli/known_hosts (env QELI_KNOWN_HOSTS). The first key seen for an endpoint is
// appended; a later different key is the fatal SERVER KEY MISMATCH.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "base/result.h"

namespace qeli::client {

using ServerKey = std::array<std::uint8_t, 32>;

class KnownHosts {
 public:
  explicit KnownHosts(std::string path);
  static std::string default_path();

  /// The pinned key of `endpoint` ("host:port"), if any. Malformed lines are skipped.
  std::optional<ServerKey> find(const std::string& endpoint) const;
  /// Appends `endpoint key` (creating the file 0600 and its directory 0700). Error text
  /// on failure (callers fail closed unless allow_unpinned_tofu).
  Status<std::string> add(const std::string& endpoint, const ServerKey& key);
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace qeli::client
