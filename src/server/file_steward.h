// The file steward: what lets a server that dropped its privileges (`--user qeli`, the
// packaged unit) still save the config and edit the users file for the panel and the
// control API. After the drop the server may read /etc/qeli but not create files there
// (root's directory, group qeli read-only: a compromised data plane must not rewrite what
// root runs at start). So before the drop the server starts this helper (`qeli
// file-steward`, exec'd as root, every capability but CAP_CHOWN dropped, no_new_privs),
// and replaces files only by asking it over a socketpair. The steward writes exactly
// three kinds of file, and only what passes the same checks as the control API:
//
//   the server config   validated as check-config does, hooks and paths unchanged
//                       (server/privileged_keys.h) — so the data plane cannot give itself
//                       a root hook through the steward either;
//   the users file      [user:NAME] sections only, each valid (no hooks exist there);
//   the config history  <history>/<version id>.conf|.json (replace and remove).
//
// Each replacement is atomic (new file, fsync, rename, directory fsync) and keeps the
// owner, group and mode of the file it replaces; the history directory and its files get
// the config's group (mode 0750 / 0640), so the dropped server can list and read them.
//
// Wire (both ways, over a SOCK_STREAM socketpair; sizes big-endian u32):
//   request:  op (1: replace, 2: remove) | path size | content size | path | content
//   answer:   ok (0/1) | message size | message
#pragma once

#include <sys/types.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/result.h"
#include "config/file_replacer.h"

namespace qeli::server {

/// What the steward may write (absolute paths, fixed when it starts).
struct StewardScope {
  std::string config_path;
  std::string users_path;
  std::string history_dir;
};

/// The root side: answers requests on `fd` until the server closes it. Returns 0 then;
/// 1 on a broken stream. `scope` is what the steward may write.
int run_file_steward(int fd, const StewardScope& scope);

/// One request, decided and carried out (for run_file_steward and tests): the refusal
/// or the failed step as one sentence.
Status<std::string> steward_apply(const StewardScope& scope, int op, const std::string& path,
                                  const std::string& content);

inline constexpr int kStewardReplace = 1;
inline constexpr int kStewardRemove = 2;

/// The server's side: config::FileReplacer over the steward process. Thread-safe (one
/// request at a time).
class FileStewardClient : public config::FileReplacer {
 public:
  /// Runs `argv` (argv[0] exec'd; "--fd 3" appended) with one end of a socketpair on fd 3.
  static Result<std::unique_ptr<FileStewardClient>, std::string> spawn(
      std::vector<std::string> argv);
  ~FileStewardClient() override;
  FileStewardClient(const FileStewardClient&) = delete;
  FileStewardClient& operator=(const FileStewardClient&) = delete;

  Status<std::string> replace(const std::string& path, std::string_view content) override;
  Status<std::string> remove(const std::string& path) override;

 private:
  FileStewardClient(int fd, pid_t pid) : fd_(fd), pid_(pid) {}
  Status<std::string> ask(int op, const std::string& path, std::string_view content);
  int fd_;
  pid_t pid_;
  std::mutex mu_;
};

}  // namespace qeli::server
