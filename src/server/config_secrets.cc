#include "server/config_secrets.h"

#include <map>
#include <optional>

#include "config/ini_reader.h"

namespace qeli::server {
namespace {

// The [web] totp_secret entries of `text` as the config's own INI reader finds them
// (whatever the header's or separator's spelling): line (1-based) → value.
std::map<int, std::string> secret_entries(std::string_view text) {
  config::Findings ignore;
  const auto doc = config::parse_ini(text, "", ignore);
  std::map<int, std::string> out;
  for (const auto& s : doc.sections) {
    if (s.name != "web") continue;
    for (const auto& e : s.entries) {
      if (e.key == "totp_secret") out.emplace(e.line, e.value);
    }
  }
  return out;
}

// `text` with the lines in `replace` (1-based) swapped for new content; a line's "\r"
// (a CRLF file) is kept.
std::string replace_lines(std::string_view text, const std::map<int, std::string>& replace) {
  std::string out;
  out.reserve(text.size());
  int n = 0;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    if (const auto it = replace.find(++n); it != replace.end()) {
      out += it->second;
      if (line.ends_with('\r')) out += '\r';
    } else {
      out += line;
    }
    if (nl != std::string_view::npos) out += '\n';
  }
  return out;
}

}  // namespace

std::string hide_secrets(std::string_view text) {
  std::map<int, std::string> replace;
  for (const auto& [line, value] : secret_entries(text)) {
    replace.emplace(line, "totp_secret = " + std::string(kHiddenSecret));
  }
  return replace.empty() ? std::string(text) : replace_lines(text, replace);
}

bool has_hidden_secret(std::string_view text) {
  for (const auto& [line, value] : secret_entries(text)) {
    if (value == kHiddenSecret) return true;
  }
  return false;
}

std::string restore_secrets(std::string_view edited, std::string_view current) {
  const auto real = secret_entries(current);
  if (real.empty()) return std::string(edited);
  std::map<int, std::string> replace;
  for (const auto& [line, value] : secret_entries(edited)) {
    if (value == kHiddenSecret) replace.emplace(line, "totp_secret = " + real.begin()->second);
  }
  return replace.empty() ? std::string(edited) : replace_lines(edited, replace);
}

}  // namespace qeli::server
