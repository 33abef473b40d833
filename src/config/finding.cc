#include "config/finding.h"

namespace qeli::config {

std::string Finding::to_string() const {
  std::string out = file.empty() ? "<config>" : file;
  if (line > 0) out += ":" + std::to_string(line);
  switch (severity) {
    case Severity::kError: out += ": error: "; break;
    case Severity::kUnknownKey: out += ": unknown key: "; break;
    case Severity::kWarning: out += ": warning: "; break;
  }
  if (!section.empty()) out += "[" + section + "] ";
  if (!key.empty()) out += key + ": ";
  out += message;
  return out;
}

void Findings::error(std::string_view file, std::string_view section, std::string_view key,
                     int line, std::string message) {
  items_.push_back({Severity::kError, std::string(file), std::string(section), std::string(key),
                    line, std::move(message)});
}

void Findings::warning(std::string_view file, std::string_view section, std::string_view key,
                       int line, std::string message) {
  items_.push_back({Severity::kWarning, std::string(file), std::string(section), std::string(key),
                    line, std::move(message)});
}

void Findings::append(const Findings& other) {
  items_.insert(items_.end(), other.items_.begin(), other.items_.end());
}

std::size_t Findings::count(Severity s) const {
  std::size_t n = 0;
  for (const auto& f : items_) n += f.severity == s ? 1 : 0;
  return n;
}

bool Findings::contains(Severity severity, std::string_view key, std::string_view needle) const {
  for (const auto& f : items_) {
    if (f.severity == severity && (key.empty() || f.key == key) &&
        f.message.find(needle) != std::string::npos) {
      return true;
    }
  }
  return false;
}

}  // namespace qeli::config
