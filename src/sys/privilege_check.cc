#include "sys/privilege_check.h"

#include <sys/capability.h>
#include <unistd.h>

#include <cctype>
#include <filesystem>
#include <memory>

#include "sys/privilege.h"

namespace qeli::sys {

bool has_capability(int capability) {
  cap_t caps = cap_get_proc();
  if (caps == nullptr) return false;
  cap_flag_value_t v = CAP_CLEAR;
  const bool ok = cap_get_flag(caps, static_cast<cap_value_t>(capability), CAP_EFFECTIVE, &v) == 0;
  cap_free(caps);
  return ok && v == CAP_SET;
}

std::optional<std::string> missing_privileges(const std::string& what,
                                              const std::vector<PrivilegeNeed>& needs) {
  std::string whys, ambient;
  int missing = 0;
  for (const auto& n : needs) {
    if (has_capability(n.capability)) continue;
    std::string name = capability_names({n.capability});
    for (auto& ch : name) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    whys += (whys.empty() ? "" : ", and ") + name + " to " + n.why;
    ambient += (ambient.empty() ? "" : " ") + name;
    ++missing;
  }
  if (missing == 0) return std::nullopt;
  return what + " needs " + whys + "; this process (uid " + std::to_string(::geteuid()) +
         ") does not have " + (missing == 1 ? "it" : "them") +
         ": run it as root (sudo), from its systemd unit, or grant the capability (systemd: "
         "AmbientCapabilities=" +
         ambient + ")";
}

std::optional<std::string> unwritable_directory(const std::string& dir, const std::string& why) {
  namespace fs = std::filesystem;
  fs::path p(dir);
  std::error_code ec;
  while (!p.empty() && !fs::exists(p, ec)) {
    if (p == p.parent_path()) break;
    p = p.parent_path();
  }
  if (p.empty()) p = ".";
  if (::access(p.c_str(), W_OK | X_OK) == 0) return std::nullopt;
  return "cannot write " + p.string() + " (" + why + ") as uid " + std::to_string(::geteuid()) +
         ": run as root, or point it at a directory you own";
}

}  // namespace qeli::sys
