#include "server/file_steward.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>

#include <spdlog/spdlog.h>

#include "config/ini_reader.h"
#include "config/server_config.h"
#include "server/config_secrets.h"
#include "server/config_store.h"
#include "sys/child_exec.h"
#include "sys/file_util.h"

namespace qeli::server {
namespace {

constexpr int kStewardFd = 3;
constexpr std::size_t kMaxPath = 4096;

bool send_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

bool read_exact(int fd, char* out, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::read(fd, out, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    out += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

void put_u32(std::string& out, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8)
    out.push_back(static_cast<char>((v >> shift) & 0xff));
}
std::uint32_t get_u32(const char* p) {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

Unexpected<std::string> refuse(std::string why) { return fail(std::move(why)); }

std::string first_error(const config::Findings& f) {
  for (const auto& x : f.all()) {
    if (x.severity == config::Severity::kError) return x.to_string();
  }
  return "invalid";
}

// The directory holding a file the steward writes must be root's and writable by root
// alone: in one the dropped server could write, it could swap the file for a link between
// our checks and our rename.
Status<std::string> check_parent(const std::string& path) {
  const std::string dir = std::filesystem::path(path).parent_path().string();
  struct stat d {};
  if (::lstat(dir.c_str(), &d) != 0) return refuse(dir + ": " + std::strerror(errno));
  if (!S_ISDIR(d.st_mode) || d.st_uid != 0 || (d.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    return refuse(dir +
                  " is not a directory only root may write: the file steward writes "
                  "nothing there");
  }
  return {};
}

// Replaces an existing regular file (never through a symbolic link), keeping its owner,
// group and permission bits (set-id bits dropped).
Status<std::string> replace_keeping(const std::string& path, const std::string& content) {
  if (auto p = check_parent(path); !p.ok()) return p;
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return refuse(path + ": " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return refuse(path + " is not a regular file");
  auto w = sys::write_file_atomic(path, content, st.st_mode & 0777,
                                  std::make_pair(st.st_uid, st.st_gid));
  if (!w.ok()) return refuse(w.error().detail);
  return {};
}

// A version file of the config history: <dir>/<id>.conf or <dir>/<id>.json.
bool is_history_file(const StewardScope& scope, const std::string& path) {
  const std::filesystem::path p(path);
  if (p.parent_path().string() != scope.history_dir) return false;
  const std::string name = p.filename().string();
  if (name.size() != 30) return false;
  const std::string ext = name.substr(25);
  return (ext == ".conf" || ext == ".json") && is_config_version_id(name.substr(0, 25));
}

// The history belongs to root with the config's group, so the dropped server reads it.
// What may go there is bounded: a ".conf" is a copy of the config as it is on disk now
// (ConfigStore keeps it before a save), a ".json" its small description; and no more than
// kMaxHistoryFiles files (ConfigStore prunes to kMaxVersions after each save).
constexpr std::size_t kMaxHistoryFiles = 2 * ConfigStore::kMaxVersions + 4;

Status<std::string> write_history(const StewardScope& scope, const std::string& path,
                                  const std::string& content) {
  struct stat cfg {};
  if (::stat(scope.config_path.c_str(), &cfg) != 0) {
    return refuse(scope.config_path + ": " + std::strerror(errno));
  }
  if (path.ends_with(".conf")) {
    auto current = sys::read_small_file(scope.config_path, config::kMaxFileBytes);
    if (!current.ok() || *current != content) {
      return refuse("a history version must be the config as it is now");
    }
  } else if (content.size() > 4096 || content.empty() || content.front() != '{') {
    return refuse("a history description is a small JSON object");
  }
  if (auto p = check_parent(scope.history_dir); !p.ok()) return p;
  if (::mkdir(scope.history_dir.c_str(), 0750) != 0 && errno != EEXIST) {
    return refuse("mkdir " + scope.history_dir + ": " + std::strerror(errno));
  }
  // New or left by an older version (0700): root's, the config's group, 0750.
  struct stat d {};
  if (::lstat(scope.history_dir.c_str(), &d) != 0 || !S_ISDIR(d.st_mode)) {
    return refuse(scope.history_dir + " is not a directory");
  }
  if ((d.st_uid != cfg.st_uid || d.st_gid != cfg.st_gid) &&
      ::chown(scope.history_dir.c_str(), cfg.st_uid, cfg.st_gid) != 0) {
    return refuse(scope.history_dir + ": " + std::strerror(errno));
  }
  if ((d.st_mode & 07777) != 0750 && ::chmod(scope.history_dir.c_str(), 0750) != 0) {
    return refuse(scope.history_dir + ": " + std::strerror(errno));
  }
  std::size_t files = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(scope.history_dir, ec)) {
    (void)e;
    ++files;
  }
  if (files >= kMaxHistoryFiles && ::access(path.c_str(), F_OK) != 0) {
    return refuse(scope.history_dir + " holds " + std::to_string(files) +
                  " files already: remove old versions first");
  }
  auto w = sys::write_file_atomic(path, content, 0640, std::make_pair(cfg.st_uid, cfg.st_gid));
  if (!w.ok()) return refuse(w.error().detail);
  return {};
}

}  // namespace

Status<std::string> steward_apply(const StewardScope& scope, int op, const std::string& path,
                                  const std::string& content) {
  if (content.size() > config::kMaxFileBytes) return refuse(path + ": larger than 4 MiB");
  if (op == kStewardRemove) {
    if (!is_history_file(scope, path)) return refuse("the file steward removes no " + path);
    auto r = sys::remove_file(path);
    if (!r.ok()) return refuse(r.error().detail);
    return {};
  }
  if (op != kStewardReplace) return refuse("unknown file steward request");
  if (path == scope.config_path) {
    // The control API's own rule: check-config's validation, hooks and paths unchanged —
    // on these very bytes (validate() would put a hidden secret back; the file must not
    // get the placeholder instead of the admin's second factor).
    if (has_hidden_secret(content)) {
      return refuse("the config was not saved: [web] totp_secret is the placeholder " +
                    std::string(kHiddenSecret));
    }
    const auto v = ConfigStore(scope.config_path, scope.history_dir).validate(content);
    if (!v.ok) {
      for (const auto& f : v.findings) {
        if (f.severity != "warning") return refuse("the config was not saved: " + f.text);
      }
      return refuse("the config was not saved");
    }
    return replace_keeping(path, content);
  }
  if (path == scope.users_path) {
    config::Findings findings;
    const auto doc = config::parse_ini(content, path, findings);
    std::vector<config::UserConfig> users;
    config::read_user_sections(doc, /*allow_other_sections=*/false, users, findings);
    if (findings.has_errors())
      return refuse("the users file was not saved: " + first_error(findings));
    return replace_keeping(path, content);
  }
  if (is_history_file(scope, path)) return write_history(scope, path, content);
  return refuse("the file steward writes no " + path);
}

int run_file_steward(int fd, const StewardScope& scope) {
  for (;;) {
    char head[9];
    if (!read_exact(fd, head, 1)) return 0;  // the server closed: done
    if (!read_exact(fd, head + 1, 8)) return 1;
    const int op = static_cast<unsigned char>(head[0]);
    const std::uint32_t path_size = get_u32(head + 1);
    const std::uint32_t content_size = get_u32(head + 5);
    if (path_size == 0 || path_size > kMaxPath || content_size > config::kMaxFileBytes) {
      spdlog::error("file steward: malformed request ({} / {} bytes); stopping", path_size,
                    content_size);
      return 1;
    }
    std::string path(path_size, '\0'), content(content_size, '\0');
    if (!read_exact(fd, path.data(), path.size()) ||
        !read_exact(fd, content.data(), content.size())) {
      return 1;
    }
    const auto done = steward_apply(scope, op, path, content);
    if (done.ok()) {
      spdlog::info("file steward: {} {}", op == kStewardRemove ? "removed" : "replaced", path);
    } else {
      spdlog::warn("file steward: refused: {}", done.error());
    }
    const std::string message = done.ok() ? std::string() : done.error();
    std::string answer(1, done.ok() ? '\1' : '\0');
    put_u32(answer, static_cast<std::uint32_t>(message.size()));
    answer += message;
    if (!send_all(fd, answer)) return 1;
  }
}

Result<std::unique_ptr<FileStewardClient>, std::string> FileStewardClient::spawn(
    std::vector<std::string> argv_in) {
  argv_in.push_back("--fd");
  argv_in.push_back(std::to_string(kStewardFd));
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
    return refuse(std::string("file steward: socketpair: ") + std::strerror(errno));
  }
  sigset_t none;
  sigemptyset(&none);
  const pid_t pid = sys::spawn_with_fd(argv_in, sv[1], kStewardFd, none);
  if (pid < 0) {
    const int e = errno;
    ::close(sv[0]);
    ::close(sv[1]);
    return refuse(std::string("file steward: fork: ") + std::strerror(e));
  }
  ::close(sv[1]);
  // A steward that stops answering must not hold the control thread forever.
  const timeval limit{30, 0};
  (void)::setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
  (void)::setsockopt(sv[0], SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof limit);
  return std::unique_ptr<FileStewardClient>(new FileStewardClient(sv[0], pid));
}

FileStewardClient::~FileStewardClient() {
  if (fd_ >= 0) ::close(fd_);  // the steward reads EOF and exits
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
}

Status<std::string> FileStewardClient::replace(const std::string& path, std::string_view content) {
  return ask(kStewardReplace, path, content);
}

Status<std::string> FileStewardClient::remove(const std::string& path) {
  return ask(kStewardRemove, path, {});
}

Status<std::string> FileStewardClient::ask(int op, const std::string& path,
                                           std::string_view content) {
  if (path.empty() || path.size() > kMaxPath || content.size() > config::kMaxFileBytes) {
    return refuse(path + ": too large for the file steward");
  }
  std::lock_guard lock(mu_);
  std::string req(1, static_cast<char>(op));
  put_u32(req, static_cast<std::uint32_t>(path.size()));
  put_u32(req, static_cast<std::uint32_t>(content.size()));
  req += path;
  const std::string gone = "the file steward (the root helper that writes " + path +
                           " for the dropped server) is not running: restart the server";
  // After any broken exchange the stream is out of step: close it for good rather than
  // read a stale answer as the next one.
  const auto broken = [&] {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    return refuse(gone);
  };
  if (fd_ < 0) return refuse(gone);
  if (!send_all(fd_, req) || !send_all(fd_, content)) return broken();
  char head[5];
  if (!read_exact(fd_, head, 5)) return broken();
  const std::uint32_t size = get_u32(head + 1);
  if (size > 64 * 1024) return broken();
  std::string message(size, '\0');
  if (!read_exact(fd_, message.data(), size)) return broken();
  if (head[0] != '\1') return refuse(message);
  return {};
}

}  // namespace qeli::server
