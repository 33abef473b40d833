// FileReplacer: who replaces a config file's content. By default the writer itself (a
// new file beside the old one, fsync, rename: atomic for readers). A server that has
// dropped its privileges may no longer create files next to root's config, so it hands
// the replacement to its file steward (server/file_steward.h), a root helper that checks
// what it is asked to write.
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"

namespace qeli::config {

class FileReplacer {
 public:
  virtual ~FileReplacer() = default;
  /// Replaces `path` with `content` atomically, keeping the file's owner, group and mode.
  /// Error: one sentence (the refusal or the failed step with errno's text).
  virtual Status<std::string> replace(const std::string& path, std::string_view content) = 0;
  /// Removes `path` (a missing file is success).
  virtual Status<std::string> remove(const std::string& path) = 0;
};

}  // namespace qeli::config
