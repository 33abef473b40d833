#include "cli/systemd_unit.h"

#include <algorithm>

namespace qeli::cli {
namespace {

bool ascii_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// The unit's logical lines: a line ending in `\` continues on the next one (systemd puts
// a space in place of the backslash); comments and blank lines are dropped.
std::vector<std::string> logical_lines(std::string_view text) {
  std::vector<std::string> lines;
  std::string pending;
  bool continuing = false;
  while (!text.empty()) {
    const auto nl = text.find('\n');
    std::string_view raw = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    const std::string_view line = trim(raw);
    if (!continuing && (line.empty() || line.front() == '#' || line.front() == ';')) continue;
    if (!line.empty() && line.back() == '\\') {
      pending.append(line.substr(0, line.size() - 1)).push_back(' ');
      continuing = true;
      continue;
    }
    pending.append(line);
    lines.push_back(std::move(pending));
    pending.clear();
    continuing = false;
  }
  if (continuing) lines.push_back(std::move(pending));
  return lines;
}

// Every `key=value` of section `section`, in order.
std::vector<std::pair<std::string, std::string>> section_entries(std::string_view text,
                                                                 std::string_view section) {
  std::vector<std::pair<std::string, std::string>> out;
  bool inside = false;
  for (const std::string& line : logical_lines(text)) {
    if (line.front() == '[') {
      inside = line == "[" + std::string(section) + "]";
      continue;
    }
    const auto eq = line.find('=');
    if (!inside || eq == std::string::npos) continue;
    out.emplace_back(std::string(trim(std::string_view(line).substr(0, eq))),
                     std::string(trim(std::string_view(line).substr(eq + 1))));
  }
  return out;
}

// The words of a command line as systemd splits them (whitespace outside quotes;
// `\` escapes the next character), each as its span in `s`.
std::vector<std::string_view> command_words(std::string_view s) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && is_space(s[i])) ++i;
    if (i == s.size()) break;
    const std::size_t start = i;
    char quote = 0;
    for (; i < s.size(); ++i) {
      const char c = s[i];
      if (c == '\\') {
        ++i;
      } else if (quote != 0) {
        if (c == quote) quote = 0;
      } else if (c == '"' || c == '\'') {
        quote = c;
      } else if (is_space(c)) {
        break;
      }
    }
    words.push_back(s.substr(start, std::min(i, s.size()) - start));
  }
  return words;
}

// A word without its surrounding quotes (what the program receives for a plain word).
std::string_view unquoted(std::string_view w) {
  if (w.size() >= 2 && (w.front() == '"' || w.front() == '\'') && w.back() == w.front()) {
    return w.substr(1, w.size() - 2);
  }
  return w;
}

}  // namespace

bool valid_service_unit(std::string_view unit) {
  constexpr std::string_view kSuffix = ".service";
  if (unit.size() <= kSuffix.size() || unit.size() > 255 ||
      unit.substr(unit.size() - kSuffix.size()) != kSuffix ||
      unit.find("..") != std::string_view::npos || unit.front() == '.') {
    return false;
  }
  return std::all_of(unit.begin(), unit.end(), [](char c) {
    return ascii_alnum(c) || c == '_' || c == '-' || c == '.' || c == '@' || c == ':';
  });
}

bool valid_account_name(std::string_view user) {
  if (user.empty() || user.size() > 32 || !(ascii_alnum(user.front()) || user.front() == '_')) {
    return false;
  }
  return std::all_of(user.begin(), user.end(),
                     [](char c) { return ascii_alnum(c) || c == '_' || c == '-' || c == '.'; });
}

std::optional<std::string> effective_exec_start(std::string_view unit_text) {
  std::vector<std::string> execs;
  for (auto& [key, value] : section_entries(unit_text, "Service")) {
    if (key != "ExecStart") continue;
    if (value.empty()) {
      execs.clear();
    } else {
      execs.push_back(value);
    }
  }
  if (execs.size() != 1) return std::nullopt;
  return execs.front();
}

bool runs_qeli_server(std::string_view exec) {
  const auto words = command_words(exec);
  if (words.size() < 2) return false;
  std::string_view program = words[0];
  while (!program.empty() &&
         std::string_view("@-:+!").find(program.front()) != std::string_view::npos) {
    program.remove_prefix(1);
  }
  program = unquoted(program);
  const auto slash = program.rfind('/');
  if (slash != std::string_view::npos) program.remove_prefix(slash + 1);
  return program == "qeli" && unquoted(words[1]) == "server";
}

std::string without_user_option(std::string_view exec) {
  const auto words = command_words(exec);
  std::string out;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string_view w = unquoted(words[i]);
    if (w == "--user") {
      ++i;  // and its value
      continue;
    }
    if (w.substr(0, 7) == "--user=") continue;
    if (!out.empty()) out.push_back(' ');
    out.append(words[i]);
  }
  return out;
}

std::vector<std::string> unit_aliases(std::string_view unit_text) {
  std::vector<std::string> names;
  for (auto& [key, value] : section_entries(unit_text, "Install")) {
    if (key != "Alias") continue;
    if (value.empty()) names.clear();
    for (std::string_view w : command_words(value)) names.emplace_back(unquoted(w));
  }
  return names;
}

}  // namespace qeli::cli
