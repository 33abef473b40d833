#include "client/known_hosts.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "base/bytes.h"

namespace qeli::client {

KnownHosts::KnownHosts(std::string path) : path_(std::move(path)) {}

std::string KnownHosts::default_path() {
  if (const char* p = std::getenv("QELI_KNOWN_HOSTS"); p != nullptr && *p != '\0') return p;
  return "/var/lib/qeli/known_hosts";
}

std::optional<ServerKey> KnownHosts::find(const std::string& endpoint) const {
  std::ifstream in(path_);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string ep, hex;
    if (!(ls >> ep >> hex) || ep != endpoint) continue;
    ServerKey key{};
    if (from_hex_into(hex, key)) return key;
  }
  return std::nullopt;
}

Status<std::string> KnownHosts::add(const std::string& endpoint, const ServerKey& key) {
  const auto slash = path_.rfind('/');
  if (slash != std::string::npos && slash > 0) {
    const std::string dir = path_.substr(0, slash);
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
      return fail("cannot create " + dir + ": " + std::strerror(errno));
    }
  }
  const int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) return fail("cannot open " + path_ + ": " + std::strerror(errno));
  ::flock(fd, LOCK_EX);
  const std::string line = endpoint + " " + to_hex(key) + "\n";
  const bool ok = ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
  ::fsync(fd);
  ::flock(fd, LOCK_UN);
  ::close(fd);
  if (!ok) return fail("cannot write " + path_);
  return {};
}

}  // namespace qeli::client
