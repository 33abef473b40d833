#include "dns/blocklist.h"

#include "dns/name.h"

namespace qeli::dns {

bool Blocklist::blocks(std::string_view wire_name) const {
  if (names_.empty()) return false;
  std::string probe;
  for (std::string_view n = wire_name; !n.empty() && n[0] != '\0'; n = parent(n)) {
    probe.assign(n);
    if (names_.count(probe) != 0) return true;
  }
  return false;
}

}  // namespace qeli::dns
