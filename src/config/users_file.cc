#include "config/users_file.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <utility>
#include <vector>

#include "config/values.h"
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

// Opens and exclusively locks the users file, making sure the lock is on the file that
// `path` names now: a writer that renamed a new file over it while we waited leaves us a
// lock on the old inode, so we reopen.
Status<Error<UsersFileError>> open_locked(const std::string& path, int flags, int& out) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    const int fd = ::open(path.c_str(), flags | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) return io_error("open " + path);
    while (::flock(fd, LOCK_EX) != 0) {
      if (errno != EINTR) {
        const auto e = io_error("lock " + path);
        ::close(fd);
        return e;
      }
    }
    struct stat a {
    }, b{};
    if (::fstat(fd, &a) == 0 && ::stat(path.c_str(), &b) == 0 && a.st_ino == b.st_ino &&
        a.st_dev == b.st_dev) {
      out = fd;
      return {};
    }
    ::close(fd);  // replaced meanwhile: lock the new one
  }
  errno = EAGAIN;
  return io_error("lock " + path);
}

bool is_section_header(std::string_view line) {
  const auto first = line.find_first_not_of(" \t");
  return first != std::string_view::npos && line[first] == '[';
}

// Only a line that is a section header (its first non-blank character '['): a comment or
// a value that mentions "[user:bob]" is not bob's section.
bool is_header_of(std::string_view line, const std::string& section) {
  if (!is_section_header(line)) return false;
  const auto a = line.find('[');
  const auto b = line.find(']');
  if (a == std::string_view::npos || b == std::string_view::npos || b < a) return false;
  return trim(line.substr(a + 1, b - a - 1)) == section;
}

std::string_view key_of(std::string_view line) {
  const auto eq = line.find_first_of("=:");
  return eq == std::string_view::npos ? std::string_view{} : trim(line.substr(0, eq));
}

// Rewrites the users file through `edit` (over its lines; false = nothing to do, with
// `missing` set when the user is absent), then renames the result over it.
// Replaces the file (locked by `fd`) with `out`: through `via` when given, else a new
// file beside it renamed over it, keeping owner, group and mode.
Status<Error<UsersFileError>> replace_locked(const std::string& path, int fd,
                                             const std::string& out, FileReplacer* via) {
  if (via != nullptr) {
    auto st = via->replace(path, out);
    if (!st.ok()) return fail(Error<UsersFileError>{UsersFileError::kIo, st.error()});
    return {};
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) return io_error("stat " + path);
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  Fd w(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (w.get() < 0) return io_error("create " + tmp);
  // Keep the owner, group and mode (a 0640 root:qeli file stays readable by the server).
  (void)::fchown(w.get(), st.st_uid, st.st_gid);
  (void)::fchmod(w.get(), st.st_mode & 07777);
  if (!write_all(w.get(), out) || ::fsync(w.get()) != 0) {
    const auto e = io_error("write " + tmp);
    ::unlink(tmp.c_str());
    return e;
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const auto e = io_error("rename " + tmp);
    ::unlink(tmp.c_str());
    return e;
  }
  return {};
}

template <class Edit>
Status<Error<UsersFileError>> rewrite_section(const std::string& path, const std::string& section,
                                              bool create, Edit edit, FileReplacer* via = nullptr,
                                              const UsersFileCheck& check = {}) {
  int raw = -1;
  if (auto st = open_locked(path, O_RDONLY, raw); !st.ok()) return st;
  Fd fd(raw);
  std::string text;
  if (!read_all(fd.get(), text)) return io_error("read " + path);
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    const auto nl = text.find('\n', start);
    lines.push_back(text.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
    start = nl == std::string::npos ? text.size() : nl + 1;
  }
  // The section's line range [begin, end).
  std::size_t begin = lines.size(), end = lines.size();
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (begin == lines.size() && is_header_of(lines[i], section)) {
      begin = i;
    } else if (begin != lines.size() && is_section_header(lines[i])) {
      end = i;
      break;
    }
  }
  if (begin == lines.size() && create) {
    // A new section goes before the first section header (the singleton sections come
    // first in our files) or at the end of a file without one.
    std::size_t at = lines.size();
    for (std::size_t i = 0; i < lines.size(); ++i) {
      if (is_section_header(lines[i])) {
        at = i;
        break;
      }
    }
    lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(at), {"[" + section + "]", ""});
    begin = at;
    end = at + 1;
  }
  if (begin == lines.size()) {
    return fail(
        Error<UsersFileError>{UsersFileError::kNotFound, "no [" + section + "] in " + path});
  }
  edit(lines, begin, end);
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  if (check) {
    if (auto refused = check(out)) {
      return fail(Error<UsersFileError>{UsersFileError::kInvalid, std::move(*refused)});
    }
  }
  return replace_locked(path, fd.get(), out, via);
}

template <class Edit>
Status<Error<UsersFileError>> rewrite(const std::string& path, const std::string& name, Edit edit,
                                      FileReplacer* via = nullptr,
                                      const UsersFileCheck& check = {}) {
  return rewrite_section(path, "user:" + name, false, std::move(edit), via, check);
}

// Sets each key of the section whose header is lines[b] (and which ends before lines[e])
// as KeyLines says: the key's first line gives way to its new lines, its later lines go;
// a key without a line gets its lines after the section's last key line (so before the
// blank lines and comments that precede the next section).
void set_keys(std::vector<std::string>& lines, std::size_t b, std::size_t e,
              const std::vector<KeyLines>& want) {
  for (const auto& [k, values] : want) {
    std::optional<std::size_t> first;
    for (std::size_t i = b + 1; i < e;) {
      if (key_of(lines[i]) != k) {
        ++i;
        continue;
      }
      if (!first) first = i;
      lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(i));
      --e;
    }
    std::size_t at = e;
    if (first) {
      at = *first;
    } else {
      while (at > b + 1 && key_of(lines[at - 1]).empty()) --at;
    }
    for (const auto& v : values) {
      lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(at++), k + " = " + v);
      ++e;
    }
  }
}

}  // namespace

namespace {

// Sets each key of [web] to its value (nullopt: removes its lines); the section is
// created when the file has none.
Status<Error<UsersFileError>> set_web_keys(
    const std::string& path,
    const std::vector<std::pair<std::string, std::optional<std::string>>>& want) {
  std::vector<KeyLines> keys;
  for (const auto& [k, v] : want) {
    keys.push_back({k, v ? std::vector<std::string>{*v} : std::vector<std::string>{}});
  }
  return rewrite_section(path, "web", true,
                         [&](std::vector<std::string>& lines, std::size_t b, std::size_t e) {
                           set_keys(lines, b, e, keys);
                         });
}

}  // namespace

Status<Error<UsersFileError>> set_web_password(const std::string& path, const std::string& username,
                                               const std::string& password_hash, bool enable) {
  if (!crypto::argon2id_is_phc(password_hash)) {
    return fail(Error<UsersFileError>{UsersFileError::kBadHash, "not an Argon2id PHC string"});
  }
  std::vector<std::pair<std::string, std::optional<std::string>>> want = {
      {"username", username}, {"password_hash", password_hash}};
  if (enable) want.emplace_back("enabled", "true");
  return set_web_keys(path, want);
}

Status<Error<UsersFileError>> set_web_totp(const std::string& path,
                                           const std::string& totp_secret) {
  if (totp_secret.empty()) return set_web_keys(path, {{"totp_secret", std::nullopt}});
  return set_web_keys(path, {{"totp_secret", totp_secret}});
}

Status<Error<UsersFileError>> remove_user(const std::string& path, const std::string& name,
                                          FileReplacer* via) {
  return rewrite(
      path, name,
      [](std::vector<std::string>& lines, std::size_t b, std::size_t e) {
        // Also the blank lines that separated it from the next section.
        while (b > 0 && trim(lines[b - 1]).empty()) --b;
        lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(b),
                    lines.begin() + static_cast<std::ptrdiff_t>(e));
      },
      via);
}

Status<Error<UsersFileError>> set_user_password(const std::string& path, const std::string& name,
                                                const std::string& password_hash) {
  if (!crypto::argon2id_is_phc(password_hash)) {
    return fail(Error<UsersFileError>{UsersFileError::kBadHash, "not an Argon2id PHC string"});
  }
  return rewrite(path, name, [&](std::vector<std::string>& lines, std::size_t b, std::size_t e) {
    bool written = false;
    for (std::size_t i = e; i-- > b + 1;) {
      const auto k = key_of(lines[i]);
      if (k == "password_enc") {
        lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(i));
      } else if (k == "password_hash") {
        lines[i] = "password_hash = " + password_hash;
        written = true;
      }
    }
    if (!written) {
      lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(b + 1),
                   "password_hash = " + password_hash);
    }
  });
}

Status<Error<UsersFileError>> set_user_keys(const std::string& path, const std::string& name,
                                            const std::vector<KeyLines>& keys,
                                            const UsersFileCheck& check, FileReplacer* via) {
  for (const auto& k : keys) {
    for (const auto& v : k.values) {
      for (const char ch : v) {
        const auto u = static_cast<unsigned char>(ch);
        if (u < 0x20 || u == 0x7f) {
          return fail(Error<UsersFileError>{
              UsersFileError::kInvalid,
              k.key + ": a value may not hold a control character (a line break would start "
                      "another key)"});
        }
      }
    }
  }
  return rewrite(
      path, name,
      [&](std::vector<std::string>& lines, std::size_t b, std::size_t e) {
        set_keys(lines, b, e, keys);
      },
      via, check);
}

Status<Error<UsersFileError>> add_device(const std::string& path, const std::string& user,
                                         const DeviceCredential& d, FileReplacer* via) {
  if (!is_device_id(d.id) || !is_valid_object_name(d.name)) {
    return fail(Error<UsersFileError>{UsersFileError::kBadName,
                                      "device names are 1..64 of letters, digits, - _ . @"});
  }
  if (!crypto::argon2id_is_phc(d.phc)) {
    return fail(Error<UsersFileError>{UsersFileError::kBadHash, "not an Argon2id PHC string"});
  }
  bool exists = false;
  auto st = rewrite(
      path, user,
      [&](std::vector<std::string>& lines, std::size_t b, std::size_t e) {
        for (std::size_t i = b + 1; i < e; ++i)
          exists = exists || key_of(lines[i]) == "device." + d.id;
        if (exists) return;
        // After the section's last key line (before trailing blank lines or comments).
        std::size_t at = e;
        while (at > b + 1 && key_of(lines[at - 1]).empty()) --at;
        lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(at),
                     "device." + d.id + " = " + d.name + " " + d.phc);
      },
      via);
  if (!st.ok()) return st;
  if (exists) {
    return fail(
        Error<UsersFileError>{UsersFileError::kExists, user + " already has a device " + d.id});
  }
  return {};
}

Status<Error<UsersFileError>> remove_device(const std::string& path, const std::string& user,
                                            const std::string& id, FileReplacer* via) {
  bool found = false;
  auto st = rewrite(
      path, user,
      [&](std::vector<std::string>& lines, std::size_t b, std::size_t e) {
        for (std::size_t i = e; i-- > b + 1;) {
          if (key_of(lines[i]) == "device." + id) {
            lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(i));
            found = true;
          }
        }
      },
      via);
  if (!st.ok()) return st;
  if (!found) {
    return fail(Error<UsersFileError>{UsersFileError::kNotFound,
                                      user + " has no device " + id + " (qeli list-devices)"});
  }
  return {};
}

std::vector<UserConfig> read_users_file(const std::string& path, Findings& findings) {
  std::vector<UserConfig> users;
  IniDocument doc;
  if (read_ini_file(path, doc, findings)) {
    read_user_sections(doc, /*allow_other_sections=*/false, users, findings);
  }
  return users;
}

Status<Error<UsersFileError>> append_user(const std::string& path, const NewUser& u,
                                          FileReplacer* via) {
  if (!is_valid_object_name(u.name)) {
    return fail(Error<UsersFileError>{UsersFileError::kBadName,
                                      "user names are 1..64 of letters, digits, - _ . @"});
  }
  if (!crypto::argon2id_is_phc(u.password_hash)) {
    return fail(Error<UsersFileError>{UsersFileError::kBadHash, "not an Argon2id PHC string"});
  }
  for (const auto& p : u.profiles) {
    if (!is_valid_object_name(p)) {
      return fail(Error<UsersFileError>{UsersFileError::kBadName, "bad profile name " + p});
    }
  }
  // Serialise concurrent add-client runs (and remove-user / passwd) on the file itself.
  int raw = -1;
  const int flags = via != nullptr ? O_RDONLY : O_RDWR | O_CREAT | O_APPEND;
  if (auto st = open_locked(path, flags, raw); !st.ok()) return st;
  Fd fd(raw);
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
  // Through a replacer the whole file is replaced (its writer cannot append to it).
  if (via != nullptr) return replace_locked(path, fd.get(), existing + text, via);
  if (!write_all(fd.get(), text)) return io_error("write " + path);
  if (::fsync(fd.get()) != 0) return io_error("fsync " + path);
  return {};
}

}  // namespace qeli::config
