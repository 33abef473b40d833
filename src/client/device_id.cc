#include "client/device_id.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

#include "crypto/ct.h"
#include "crypto/random.h"

namespace qeli::client {

std::string default_device_id_path() {
  if (const char* p = std::getenv("QELI_DEVICE_ID_FILE"); p != nullptr && *p != '\0') return p;
  return "/var/lib/qeli/device-id";
}

DeviceId load_device_id(const std::string& path) {
  DeviceId id{};
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    const ssize_t n = ::read(fd, id.data(), id.size());
    ::close(fd);
    if (n == static_cast<ssize_t>(id.size()) && !crypto::ct_is_zero(id)) return id;
  }
  crypto::random_bytes(id);
  const auto slash = path.rfind('/');
  if (slash != std::string::npos && slash > 0) ::mkdir(path.substr(0, slash).c_str(), 0700);
  const std::string tmp = path + ".tmp";
  const int out = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (out >= 0) {
    const bool ok = ::write(out, id.data(), id.size()) == static_cast<ssize_t>(id.size());
    ::fsync(out);
    ::close(out);
    if (ok) ::rename(tmp.c_str(), path.c_str());
  }
  return id;
}

}  // namespace qeli::client
