#include "server/privileged_keys.h"

#include <array>
#include <map>
#include <utility>

namespace qeli::server {
namespace {

constexpr std::array<std::string_view, 10> kPathKeys{
    "identity_key", "users_file", "file",       "tls_cert",      "tls_key",
    "state_dir",    "user",       "route_file", "password_file", "outbox"};

bool contains_word(std::string_view key, std::string_view word) {
  return key.find(word) != std::string_view::npos;
}

// `logging.file` may point inside /var/log/qeli/ (no "..", no "//" tricks).
bool allowed_value(std::string_view section, std::string_view key, std::string_view value) {
  if (section != "logging" || key != "file") return false;
  constexpr std::string_view kDir = "/var/log/qeli/";
  if (!value.starts_with(kDir) || value.size() == kDir.size()) return false;
  const std::string_view rest = value.substr(kDir.size());
  return rest.find('/') == std::string_view::npos && rest != "." && rest != ".." &&
         rest.find('\0') == std::string_view::npos;
}

using Values = std::map<std::pair<std::string, std::string>, std::vector<std::string>>;

Values privileged_values(const config::IniDocument& d, std::map<std::string, int>& lines) {
  Values v;
  for (const auto& s : d.sections) {
    for (const auto& e : s.entries) {
      if (!is_privileged_key(s.name, e.key)) continue;
      v[{s.name, e.key}].push_back(e.value);
      lines[s.name + "\n" + e.key] = e.line;
    }
  }
  return v;
}

}  // namespace

bool is_privileged_key(std::string_view section, std::string_view key) {
  // The config owner's credentials: set on the server (`qeli set-web-password`,
  // `set-web-totp`), never by someone who reached the editor with another account.
  if (section == "web" && (key == "totp_secret" || key == "password_hash" || key == "username")) {
    return true;
  }
  // hooks and anything the server would execute
  if (key.ends_with("post_up") || key.ends_with("post_down") || key.ends_with("_command") ||
      contains_word(key, "hook") || contains_word(key, "script") || contains_word(key, "exec")) {
    return true;
  }
  // paths the server reads or writes as root
  const auto dot = key.rfind('.');
  const std::string_view last = dot == std::string_view::npos ? key : key.substr(dot + 1);
  for (auto p : kPathKeys) {
    if (last == p) return true;
  }
  return key.ends_with("_path") || key.ends_with("_dir") || key.ends_with("_file") ||
         key.ends_with("_db");
}

std::vector<config::Finding> privileged_changes(const config::IniDocument& before,
                                                const config::IniDocument& after) {
  std::map<std::string, int> lines_before, lines_after;
  const Values a = privileged_values(before, lines_before);
  const Values b = privileged_values(after, lines_after);
  std::vector<config::Finding> out;
  auto refuse = [&](const std::pair<std::string, std::string>& k, int line) {
    config::Finding f;
    f.severity = config::Severity::kError;
    f.file = after.file;
    f.section = k.first;
    f.key = k.second;
    f.line = line;
    f.message =
        "hooks, file paths and the panel owner's credentials cannot be changed from the panel or "
        "the control socket; "
        "edit " +
        after.file + " as root";
    out.push_back(std::move(f));
  };
  auto all_allowed = [&](const std::pair<std::string, std::string>& k,
                         const std::vector<std::string>& vals) {
    for (const auto& v : vals) {
      if (!allowed_value(k.first, k.second, v)) return false;
    }
    return true;
  };
  for (const auto& [k, vals] : b) {
    auto it = a.find(k);
    if (it != a.end() && it->second == vals) continue;
    if (all_allowed(k, vals) && (it == a.end() || all_allowed(k, it->second))) continue;
    refuse(k, lines_after[k.first + "\n" + k.second]);
  }
  for (const auto& [k, vals] : a) {
    if (b.count(k) == 0 && !all_allowed(k, vals)) refuse(k, 0);
  }
  return out;
}

}  // namespace qeli::server
