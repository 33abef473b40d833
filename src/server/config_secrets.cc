#include "server/config_secrets.h"

#include <optional>
#include <vector>

namespace qeli::server {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

// Calls `on(line, value_begin)` for each [web] totp_secret line (value_begin: the offset
// of the value in the line) and appends every line, as `on` leaves it, to the result.
template <class F>
std::string rewrite(std::string_view text, F&& on) {
  std::string out;
  out.reserve(text.size());
  bool in_web = false;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    std::string line(text.substr(0, nl));
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    const std::string_view t = trim(line);
    if (t.starts_with('[')) {
      in_web = t == "[web]";
    } else if (in_web && !t.starts_with('#') && !t.starts_with(';')) {
      const std::size_t eq = line.find('=');
      if (eq != std::string::npos && trim(std::string_view(line).substr(0, eq)) == "totp_secret") {
        on(line, eq + 1);
      }
    }
    out += line;
    if (nl != std::string_view::npos) out += '\n';
  }
  return out;
}

std::string_view value_of(const std::string& line, std::size_t from) {
  return trim(std::string_view(line).substr(from));
}

}  // namespace

std::string hide_secrets(std::string_view text) {
  return rewrite(text, [](std::string& line, std::size_t from) {
    line = line.substr(0, from) + " " + std::string(kHiddenSecret);
  });
}

std::string restore_secrets(std::string_view edited, std::string_view current) {
  std::optional<std::string> real;
  (void)rewrite(current, [&](std::string& line, std::size_t from) {
    if (!real) real = std::string(value_of(line, from));
  });
  if (!real) return std::string(edited);
  return rewrite(edited, [&](std::string& line, std::size_t from) {
    if (value_of(line, from) == kHiddenSecret) line = line.substr(0, from) + " " + *real;
  });
}

}  // namespace qeli::server
