// qeli:// link parser. Invariants: a parsed link re-emits to a link that parses to the
// same emission (emit is a fixed point after one round), and validation never crashes.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "config/link.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string uri(reinterpret_cast<const char*>(data), size);
  const auto l = qeli::config::parse_link(uri);
  if (!l.ok()) return 0;
  (void)qeli::config::validate_link(*l);
  const std::string once = qeli::config::emit_link(*l);
  const auto again = qeli::config::parse_link(once);
  if (!again.ok()) std::abort();
  if (qeli::config::emit_link(*again) != once) std::abort();
  if (again->user != l->user || again->pass != l->pass || again->label != l->label) std::abort();
  return 0;
}
