#include "config/identity_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>

namespace qeli::config {
namespace {

using IdResult = Result<Identity, Error<IdentityError>>;

Unexpected<Error<IdentityError>> id_error(IdentityError code, std::string detail) {
  return fail(Error<IdentityError>{code, std::move(detail)});
}

Unexpected<Error<IdentityError>> io_error(const std::string& what) {
  return id_error(IdentityError::kIo, what + ": " + std::strerror(errno));
}

bool valid_profile(std::string_view p) {
  if (p.empty() || p.size() > 64 || p == "." || p == "..") return false;
  return p.find_first_of("/\\ \t\n") == std::string_view::npos;
}

std::string parent_dir(const std::string& path) {
  const auto parent = std::filesystem::path(path).parent_path();
  return parent.empty() ? "." : parent.string();
}

// Creates the directory holding the key (and its parents) if needed; a directory we
// create is 0700 so keys are never exposed by a lax umask.
bool ensure_dir(const std::string& dir) {
  std::error_code ec;
  if (std::filesystem::is_directory(dir, ec)) return true;
  std::filesystem::create_directories(std::filesystem::path(dir).parent_path(), ec);
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return false;
  return true;
}

IdResult load_key(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return io_error("open " + path);
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int e = errno;
    ::close(fd);
    errno = e;
    return io_error("stat " + path);
  }
  if (!S_ISREG(st.st_mode) || st.st_size != 32) {
    ::close(fd);
    return id_error(IdentityError::kBadFile, path + " is not a 32-byte key file");
  }
  if ((st.st_mode & 077) != 0) {
    ::close(fd);
    return id_error(IdentityError::kInsecure,
                    path +
                        " is accessible by group/others; chmod 600 it (and consider the "
                        "key leaked)");
  }
  std::array<std::uint8_t, 32> buf{};
  std::size_t got = 0;
  while (got < buf.size()) {
    const ssize_t n = ::read(fd, buf.data() + got, buf.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  ::close(fd);
  if (got != buf.size()) {
    crypto::secure_wipe(buf.data(), buf.size());
    return id_error(IdentityError::kBadFile, "short read from " + path);
  }
  Identity id;
  id.private_key = crypto::Key32(std::span<const std::uint8_t, 32>(buf));
  crypto::secure_wipe(buf.data(), buf.size());
  id.public_key = crypto::x25519_public(id.private_key.span());
  id.path = path;
  return id;
}

// Writes a fresh key to a unique temporary file next to `path` and returns its name.
Result<std::string, Error<IdentityError>> write_temp_key(const std::string& path,
                                                         crypto::Rng& rng) {
  std::string tmpl = path + ".tmp.XXXXXX";
  const int fd = ::mkostemp(tmpl.data(), O_CLOEXEC);  // created 0600
  if (fd < 0) return io_error("create temporary key next to " + path);
  crypto::Key32 key;
  rng.fill(key.span());
  bool ok = ::fchmod(fd, 0600) == 0;
  std::size_t off = 0;
  while (ok && off < key.size()) {
    const ssize_t n = ::write(fd, key.data() + off, key.size() - off);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) off += static_cast<std::size_t>(n);
  }
  ok = ok && ::fsync(fd) == 0;
  const int e = errno;
  ::close(fd);
  if (!ok) {
    ::unlink(tmpl.c_str());
    errno = e;
    return io_error("write " + tmpl);
  }
  return tmpl;
}

void sync_dir(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

}  // namespace

IdentityStore::IdentityStore(std::string dir, crypto::Rng& rng) : dir_(std::move(dir)), rng_(rng) {}

std::string IdentityStore::path_for(std::string_view profile,
                                    std::string_view override_path) const {
  if (!override_path.empty()) return std::string(override_path);
  return (std::filesystem::path(dir_) / (std::string(profile) + ".key")).string();
}

IdResult IdentityStore::load(std::string_view profile, std::string_view override_path) const {
  if (!valid_profile(profile)) {
    return id_error(IdentityError::kBadName, "profile name unusable as a file name");
  }
  const std::string path = path_for(profile, override_path);
  if (::access(path.c_str(), F_OK) != 0 && errno == ENOENT) {
    return id_error(IdentityError::kMissing, "no identity key at " + path);
  }
  return load_key(path);
}

IdResult IdentityStore::load_or_create(std::string_view profile, std::string_view override_path) {
  if (!valid_profile(profile)) {
    return id_error(IdentityError::kBadName, "profile name unusable as a file name");
  }
  const std::string path = path_for(profile, override_path);
  if (::access(path.c_str(), F_OK) == 0) return load_key(path);
  if (!ensure_dir(parent_dir(path))) return io_error("create directory " + parent_dir(path));
  auto tmp = write_temp_key(path, rng_);
  if (!tmp) return fail(tmp.error());
  // link() refuses an existing name: if another process created the key meanwhile,
  // drop ours and use theirs, so every process of a profile shares one identity.
  const int rc = ::link(tmp->c_str(), path.c_str());
  const int e = errno;
  ::unlink(tmp->c_str());
  if (rc != 0 && e != EEXIST) {
    errno = e;
    return io_error("link " + path);
  }
  sync_dir(parent_dir(path));
  auto id = load_key(path);
  if (id && rc == 0) id->created = true;
  return id;
}

IdResult IdentityStore::rotate(std::string_view profile, std::string_view override_path) {
  if (!valid_profile(profile)) {
    return id_error(IdentityError::kBadName, "profile name unusable as a file name");
  }
  const std::string path = path_for(profile, override_path);
  if (!ensure_dir(parent_dir(path))) return io_error("create directory " + parent_dir(path));
  auto tmp = write_temp_key(path, rng_);
  if (!tmp) return fail(tmp.error());
  if (::rename(tmp->c_str(), path.c_str()) != 0) {
    const int e = errno;
    ::unlink(tmp->c_str());
    errno = e;
    return io_error("rename over " + path);
  }
  sync_dir(parent_dir(path));
  auto id = load_key(path);
  if (id) id->created = true;
  return id;
}

}  // namespace qeli::config
