#include "sys/netns_identity.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <vector>

namespace qeli::sys {

namespace {

bool same_file(const struct stat& a, const std::string& path) {
  struct stat b {};
  return ::stat(path.c_str(), &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

bool safe_name(const std::string& n) {
  if (n.empty() || n.size() > 64 || n.front() == '.') return false;
  return std::all_of(n.begin(), n.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '-';
  });
}

}  // namespace

HostResult<NetnsIdentity> current_netns(const NetnsProbePaths& paths) {
  struct stat self {};
  if (::stat(paths.self.c_str(), &self) != 0) {
    return host_fail(HostErrc::kIo, paths.self + ": " + std::strerror(errno));
  }
  NetnsIdentity id;
  id.inode = static_cast<std::uint64_t>(self.st_ino);
  id.initial = same_file(self, paths.initial);
  if (id.initial) return id;
  std::unique_ptr<DIR, int (*)(DIR*)> dir(::opendir(paths.named_dir.c_str()), ::closedir);
  if (!dir) return id;
  std::vector<std::string> names;
  while (const dirent* e = ::readdir(dir.get())) {
    const std::string n = e->d_name;
    if (n != "." && n != ".." && same_file(self, paths.named_dir + "/" + n)) names.push_back(n);
  }
  // Two names for one namespace (a second bind mount): pick one deterministically.
  std::sort(names.begin(), names.end());
  if (!names.empty()) id.name = names.front();
  return id;
}

std::string netns_suffix(const NetnsIdentity& id) {
  if (id.initial) return "";
  if (safe_name(id.name)) return "@" + id.name;
  return "@ns" + std::to_string(id.inode);
}

}  // namespace qeli::sys
