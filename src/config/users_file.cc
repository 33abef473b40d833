#include "config/users_file.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "crypto/argon2id.h"

namespace qeli::config {
namespace {

Unexpected<Error<UsersFileError>> io_error(const std::string& what) {
  return fail(Error<UsersFileError>{UsersFileError::kIo, what + ": " + std::strerror(errno)});
}

// Owns a file descriptor for the duration of a call.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

bool read_all(int fd, std::string& out) {
  char buf[8192];
  while (true) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) return true;
    out.append(buf, static_cast<std::size_t>(n));
    if (out.size() > kMaxFileBytes) return false;
  }
}

bool write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

}  // namespace

bool is_valid_user_name(std::string_view n) {
  if (n.empty() || n.size() > 64) return false;
  for (char c : n) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_' || c == '.' || c == '@';
    if (!ok) return false;
  }
  return true;
}

std::vector<UserConfig> read_users_file(const std::string& path, Findings& findings) {
  std::vector<UserConfig> users;
  IniDocument doc;
  if (read_ini_file(path, doc, findings)) {
    read_user_sections(doc, /*allow_other_sections=*/false, users, findings);
  }
  return users;
}

Status<Error<UsersFileError>> append_user(const std::string& path, const NewUser& u) {
  if (!is_valid_user_name(u.name)) {
    return fail(Error<UsersFileError>{UsersFileError::kBadName,
                                      "user names are 1..64 of letters, digits, - _ . @"});
  }
  if (!crypto::argon2id_is_phc(u.password_hash)) {
    return fail(Error<UsersFileError>{UsersFileError::kBadHash, "not an Argon2id PHC string"});
  }
  for (const auto& p : u.profiles) {
    if (!is_valid_user_name(p)) {
      return fail(Error<UsersFileError>{UsersFileError::kBadName, "bad profile name " + p});
    }
  }
  Fd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (fd.get() < 0) return io_error("open " + path);
  // Serialise concurrent add-client runs (and the panel) on the file itself.
  while (::flock(fd.get(), LOCK_EX) != 0) {
    if (errno != EINTR) return io_error("lock " + path);
  }
  std::string existing;
  if (!read_all(fd.get(), existing)) return io_error("read " + path);
  Findings ignored;
  const IniDocument doc = parse_ini(existing, path, ignored);
  for (const auto& s : doc.sections) {
    if (s.name == "user:" + u.name) {
      return fail(Error<UsersFileError>{UsersFileError::kExists,
                                        "user " + u.name + " already exists in " + path});
    }
  }
  std::string text;
  if (!existing.empty() && existing.back() != '\n') text += '\n';
  if (!existing.empty()) text += '\n';
  text += "[user:" + u.name + "]\n";
  text += "password_hash = " + u.password_hash + "\n";
  if (!u.profiles.empty()) {
    text += "profiles = ";
    for (std::size_t i = 0; i < u.profiles.size(); ++i) {
      text += (i == 0 ? "" : ",") + u.profiles[i];
    }
    text += "\n";
  }
  if (u.static_ip) text += "static_ip = " + u.static_ip->to_string() + "\n";
  if (u.max_sessions != 0) text += "max_sessions = " + std::to_string(u.max_sessions) + "\n";
  if (!u.reality_short_ids.empty()) {
    text += "reality_short_ids = ";
    for (std::size_t i = 0; i < u.reality_short_ids.size(); ++i) {
      text += (i == 0 ? "" : ",") + u.reality_short_ids[i];
    }
    text += "\n";
  }
  if (!write_all(fd.get(), text)) return io_error("write " + path);
  if (::fsync(fd.get()) != 0) return io_error("fsync " + path);
  return {};
}

}  // namespace qeli::config
