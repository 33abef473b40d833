#include "sys/sysctl.h"

#include <filesystem>

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

namespace qeli::sys {

namespace {

HostErrc errc_of_errno(int e) {
  if (e == ENOENT) return HostErrc::kNotFound;
  if (e == EPERM || e == EACCES || e == EROFS) return HostErrc::kPermission;
  return HostErrc::kIo;
}

}  // namespace

HostResult<std::string> sysctl_path(std::string_view key) {
  if (key.empty() || key.size() > 200 || key.find("..") != std::string_view::npos ||
      key.front() == '/' || key.front() == '.') {
    return host_fail(HostErrc::kInvalidArgument, "bad sysctl key '" + std::string(key) + "'");
  }
  std::string path = "/proc/sys/";
  for (const char c : key) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-' || c == '.' || c == '/';
    if (!ok)
      return host_fail(HostErrc::kInvalidArgument, "bad sysctl key '" + std::string(key) + "'");
    // sysctl(8) uses '.' as the separator unless the key already uses '/'.
    path += (c == '.' && key.find('/') == std::string_view::npos) ? '/' : c;
  }
  return path;
}

HostResult<std::string> read_sysctl(std::string_view key) {
  auto path = sysctl_path(key);
  if (!path) return fail(path.error());
  const int fd = ::open(path->c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int e = errno;
    return host_fail(errc_of_errno(e), "open " + *path + ": " + std::strerror(e));
  }
  std::array<char, 256> buf{};
  const ssize_t n = ::read(fd, buf.data(), buf.size());
  const int e = errno;
  ::close(fd);
  if (n < 0) return host_fail(errc_of_errno(e), "read " + *path + ": " + std::strerror(e));
  std::string v(buf.data(), static_cast<std::size_t>(n));
  while (!v.empty() && (v.back() == '\n' || v.back() == ' ')) v.pop_back();
  return v;
}

HostStatus write_sysctl(std::string_view key, std::string_view value) {
  auto path = sysctl_path(key);
  if (!path) return fail(path.error());
  const int fd = ::open(path->c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) {
    const int e = errno;
    return host_fail(errc_of_errno(e), "open " + *path + ": " + std::strerror(e));
  }
  const std::string line = std::string(value) + "\n";
  const ssize_t n = ::write(fd, line.data(), line.size());
  const int e = errno;
  ::close(fd);
  if (n != static_cast<ssize_t>(line.size())) {
    return host_fail(n < 0 ? errc_of_errno(e) : HostErrc::kIo,
                     "write " + *path + ": " + (n < 0 ? std::strerror(e) : "short write"));
  }
  return {};
}

std::string forwarding_key(IpFamily family) {
  return family == IpFamily::kV4 ? "net.ipv4.ip_forward" : "net.ipv6.conf.all.forwarding";
}

HostResult<std::string> enable_forwarding(IpFamily family) {
  const std::string key = forwarding_key(family);
  auto old = read_sysctl(key);
  if (!old) return fail(old.error());
  if (*old != "1") {
    if (auto w = write_sysctl(key, "1"); !w) return fail(w.error());
  }
  return old;
}

std::vector<std::string> ipv6_ra_lost_by_forwarding(std::string_view except) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/proc/sys/net/ipv6/conf", ec)) {
    const std::string name = e.path().filename().string();
    if (name == "all" || name == "default" || name == "lo" || name == except) continue;
    if (auto v = read_sysctl("net/ipv6/conf/" + name + "/accept_ra"); v.ok() && *v == "1") {
      out.push_back(name);
    }
  }
  return out;
}

}  // namespace qeli::sys
