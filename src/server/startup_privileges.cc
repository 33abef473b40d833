#include "server/startup_privileges.h"

#include <linux/capability.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include <filesystem>

#include "sys/privilege.h"

namespace qeli::server {

Status<std::string> drop_startup_privileges(const ServerOptions& options,
                                            const config::ServerConfig& cfg) {
  sys::PrivilegeDrop plan;
  plan.user = options.run_as;
  plan.keep = {CAP_NET_ADMIN};
  // What the server still writes as that user: its control socket (removed at stop;
  // the panel, running as the same user, connects to it) and, through the group, its
  // log file (reopened after logrotate; root opens it at the next start).
  // The socket before its directory: once the 0700 directory is qeli's, a root without
  // CAP_DAC_OVERRIDE (the unit's bounding set) can no longer reach into it.
  if (!options.control_socket.empty()) {
    plan.own.push_back(options.control_socket);
    plan.own.push_back(std::filesystem::path(options.control_socket).parent_path().string());
  }
  if (!cfg.logging.file.empty()) plan.share.push_back(cfg.logging.file);
  // The usage store is written every few seconds: the database and SQLite's WAL files.
  for (const char* suffix : {"", "-wal", "-shm"}) {
    const std::string f = options.usage_db.empty() ? "" : options.usage_db + suffix;
    std::error_code ec;
    if (!f.empty() && std::filesystem::exists(f, ec)) plan.own.push_back(f);
  }
  auto dropped = sys::drop_privileges(plan);
  if (!dropped.ok())
    return fail("cannot drop privileges to '" + plan.user + "': " + dropped.error());
  spdlog::info("running as user {} (uid {}, gid {}) with capabilities {}", plan.user, dropped->uid,
               dropped->gid, dropped->caps);
  // A reload re-reads these as the new user: say now, not at the first SIGHUP.
  for (const std::string& f : {options.config_path, cfg.users_file_path()}) {
    if (::access(f.c_str(), R_OK) != 0 && std::filesystem::exists(f)) {
      spdlog::warn(
          "{} is not readable by user {}: a reload (SIGHUP) will fail; make it group {} "
          "and mode 0640",
          f, plan.user, plan.user);
    }
  }
  return {};
}

}  // namespace qeli::server
