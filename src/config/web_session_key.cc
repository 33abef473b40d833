#include "config/web_session_key.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "crypto/random.h"

namespace qeli::config {

WebSessionKey random_session_key() {
  WebSessionKey k{};
  crypto::random_bytes(k);
  return k;
}

std::string session_key_path(const std::string& identity_dir) {
  return identity_dir + "/web-session.key";
}

Result<WebSessionKey, std::string> load_or_create_session_key(const std::string& path) {
  WebSessionKey k{};
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0 && errno == ENOENT) {
    k = random_session_key();
    fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) return fail(path + ": cannot create: " + std::strerror(errno));
    const bool ok =
        ::write(fd, k.data(), k.size()) == static_cast<ssize_t>(k.size()) && ::fsync(fd) == 0;
    const int err = errno;
    ::close(fd);
    if (!ok) {
      ::unlink(path.c_str());
      return fail(path + ": cannot write: " + std::strerror(err));
    }
    return k;
  }
  if (fd < 0) return fail(path + ": cannot open: " + std::strerror(errno));
  std::uint8_t buf[33];
  const ssize_t n = ::read(fd, buf, sizeof buf);
  ::close(fd);
  if (n != static_cast<ssize_t>(k.size())) {
    return fail(path + ": not a panel session key (expected exactly 32 bytes)");
  }
  std::memcpy(k.data(), buf, k.size());
  return k;
}

}  // namespace qeli::config
