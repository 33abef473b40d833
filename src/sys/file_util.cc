#include "sys/file_util.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

namespace qeli::sys {

namespace {

Unexpected<HostError> io_fail(const std::string& what, const std::string& path, int e) {
  HostErrc code = HostErrc::kIo;
  if (e == ENOENT) code = HostErrc::kNotFound;
  if (e == EACCES || e == EPERM || e == EROFS) code = HostErrc::kPermission;
  return host_fail(code, what + " " + path + ": " + std::strerror(e));
}

// A temporary name beside `path`, unique per process.
std::string temp_name(const std::string& path) {
  return path + ".qeli-tmp." + std::to_string(::getpid());
}

// Truncates and rewrites an existing regular file (keeping its mode and owner).
HostStatus write_in_place(const std::string& path, const std::string& content) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return io_fail("open", path, errno);
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int e = errno;
      ::close(fd);
      return io_fail("write", path, e);
    }
    done += static_cast<std::size_t>(n);
  }
  const int rc = ::fsync(fd);
  const int e = errno;
  ::close(fd);
  if (rc != 0) return io_fail("fsync", path, e);
  return {};
}

}  // namespace

std::string parent_dir(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

HostStatus sync_parent_dir(const std::string& path) {
  const std::string dir = parent_dir(path);
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return io_fail("open dir", dir, errno);
  const int rc = ::fsync(fd);
  const int e = errno;
  ::close(fd);
  if (rc != 0) return io_fail("fsync dir", dir, e);
  return {};
}

HostResult<PathState> inspect_path(const std::string& path) {
  struct stat st {};
  PathState s;
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return s;
    return io_fail("lstat", path, errno);
  }
  if (S_ISREG(st.st_mode)) {
    s.kind = PathState::Kind::kFile;
  } else if (S_ISLNK(st.st_mode)) {
    s.kind = PathState::Kind::kSymlink;
  } else {
    s.kind = PathState::Kind::kOther;
  }
  s.mode = st.st_mode & 07777;
  s.uid = st.st_uid;
  s.gid = st.st_gid;
  return s;
}

HostResult<std::string> read_small_file(const std::string& path, std::size_t max_bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return io_fail("open", path, errno);
  std::string out;
  std::array<char, 4096> buf{};
  for (;;) {
    const ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      const int e = errno;
      ::close(fd);
      return io_fail("read", path, e);
    }
    if (n == 0) break;
    out.append(buf.data(), static_cast<std::size_t>(n));
    if (out.size() > max_bytes) {
      ::close(fd);
      return host_fail(HostErrc::kCorrupt,
                       path + " is larger than " + std::to_string(max_bytes) + " bytes");
    }
  }
  ::close(fd);
  return out;
}

HostResult<std::string> read_link(const std::string& path) {
  std::array<char, 4096> buf{};
  const ssize_t n = ::readlink(path.c_str(), buf.data(), buf.size());
  if (n < 0) return io_fail("readlink", path, errno);
  if (static_cast<std::size_t>(n) >= buf.size()) {
    return host_fail(HostErrc::kCorrupt, "symlink target of " + path + " too long");
  }
  return std::string(buf.data(), static_cast<std::size_t>(n));
}

HostStatus write_file_atomic(const std::string& path, const std::string& content, mode_t mode,
                             std::optional<std::pair<uid_t, gid_t>> owner) {
  const std::string tmp = temp_name(path);
  ::unlink(tmp.c_str());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) {
    const int e = errno;
    // A read-only directory around a file that is itself writable: systemd's
    // ProtectSystem=strict with ReadWritePaths=/etc/resolv.conf (qeli-client@.service)
    // bind-mounts just that file. In place is then the only way, as for EBUSY below.
    if (e == EROFS && ::access(path.c_str(), W_OK) == 0) return write_in_place(path, content);
    return io_fail("create", tmp, e);
  }
  auto abandon = [&](const char* what, int e) {
    ::close(fd);
    ::unlink(tmp.c_str());
    return io_fail(what, tmp, e);
  };
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return abandon("write", errno);
    }
    done += static_cast<std::size_t>(n);
  }
  if (owner && ::fchown(fd, owner->first, owner->second) != 0) return abandon("chown", errno);
  // fchmod after fchown: chown may clear set-id bits.
  if (::fchmod(fd, mode & 07777) != 0) return abandon("chmod", errno);
  if (::fsync(fd) != 0) return abandon("fsync", errno);
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    // A mount point cannot be renamed over: containers bind-mount /etc/resolv.conf.
    // The only way to change it is in place (not atomic, but still fsynced).
    if (e == EBUSY) return write_in_place(path, content);
    return io_fail("rename onto", path, e);
  }
  return sync_parent_dir(path);
}

HostStatus write_symlink_atomic(const std::string& path, const std::string& target) {
  const std::string tmp = temp_name(path);
  ::unlink(tmp.c_str());
  if (::symlink(target.c_str(), tmp.c_str()) != 0) return io_fail("symlink", tmp, errno);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    return io_fail("rename onto", path, e);
  }
  return sync_parent_dir(path);
}

HostStatus remove_file(const std::string& path) {
  if (::unlink(path.c_str()) != 0) {
    if (errno == ENOENT) return {};
    return io_fail("unlink", path, errno);
  }
  return sync_parent_dir(path);
}

HostStatus make_dirs(const std::string& dir, mode_t mode) {
  if (dir.empty()) return {};
  std::string cur;
  std::size_t pos = 0;
  while (pos != std::string::npos) {
    pos = dir.find('/', pos + 1);
    cur = dir.substr(0, pos);
    if (cur.empty()) continue;
    if (::mkdir(cur.c_str(), mode) != 0 && errno != EEXIST) return io_fail("mkdir", cur, errno);
  }
  return {};
}

std::vector<std::string_view> split_words(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && line[i] == ' ') ++i;
    std::size_t j = i;
    while (j < line.size() && line[j] != ' ') ++j;
    if (j > i) out.push_back(line.substr(i, j - i));
    i = j;
  }
  return out;
}

}  // namespace qeli::sys
