#include "sys/names.h"

namespace qeli::sys {

namespace {

bool plain_chars(std::string_view s) {
  for (const char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-' || c == '.';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

bool is_valid_ifname(std::string_view name) {
  // IFNAMSIZ is 16 including the NUL; the kernel also refuses "." and "..".
  if (name.empty() || name.size() > 15 || name == "." || name == "..") return false;
  return plain_chars(name);
}

bool is_valid_nft_name(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  const char c = name.front();
  return ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) && plain_chars(name);
}

bool is_valid_name_suffix(std::string_view name) {
  return !name.empty() && name.size() <= 32 && plain_chars(name);
}

}  // namespace qeli::sys
