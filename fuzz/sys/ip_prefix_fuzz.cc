// Address and prefix parsing: never crashes; what parses prints canonically and parses
// back to the same value; a parsed prefix contains its own network address.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "sys/ip_prefix.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto p = qeli::sys::IpPrefix::parse(text);
  if (p.ok()) {
    auto back = qeli::sys::IpPrefix::parse(p->to_string());
    if (!back.ok() || !(*back == *p) || !p->contains(p->addr)) std::abort();
    if (p->len > p->max_len()) std::abort();
  }
  auto a = qeli::sys::IpAddress::parse(text);
  if (a.ok()) {
    auto back = qeli::sys::IpAddress::parse(a->to_string());
    if (!back.ok() || !(*back == *a)) std::abort();
  }
  return 0;
}
