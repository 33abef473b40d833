#include "wire/http_head.h"

#include <algorithm>
#include <cctype>

namespace qeli::wire {
namespace {

// Calls `f(name, value)` for each header line of `head` (after the first line) that has a
// ':'; stops when `f` returns true.
template <class F>
void for_each_field(std::string_view head, F f) {
  std::size_t pos = head.find("\r\n");
  if (pos == std::string_view::npos) return;
  pos += 2;
  while (pos < head.size()) {
    std::size_t end = head.find("\r\n", pos);
    if (end == std::string_view::npos) end = head.size();
    const std::string_view line = head.substr(pos, end - pos);
    if (const auto colon = line.find(':'); colon != std::string_view::npos) {
      if (f(trim_ows(line.substr(0, colon)), trim_ows(line.substr(colon + 1)))) return;
    }
    pos = end + 2;
  }
}

}  // namespace

std::string_view trim_ows(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

std::string_view first_line(std::string_view head) { return head.substr(0, head.find("\r\n")); }

std::optional<std::string_view> header_value(std::string_view head, std::string_view name) {
  std::optional<std::string_view> out;
  for_each_field(head, [&](std::string_view n, std::string_view v) {
    if (!iequals(n, name)) return false;
    out = v;
    return true;
  });
  return out;
}

std::size_t header_count(std::string_view head, std::string_view name) {
  std::size_t n = 0;
  for_each_field(head, [&](std::string_view f, std::string_view) {
    n += iequals(f, name) ? 1 : 0;
    return false;
  });
  return n;
}

bool lists_token(std::string_view value, std::string_view token) {
  for (;;) {
    const auto comma = value.find(',');
    if (iequals(trim_ows(value.substr(0, comma)), token)) return true;
    if (comma == std::string_view::npos) return false;
    value.remove_prefix(comma + 1);
  }
}

}  // namespace qeli::wire
