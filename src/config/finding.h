// Findings: what loading a config file found wrong, each pinned to FILE, SECTION, KEY and
// line, so an operator can go straight to the offending line.
//
// Severity decides what happens next: an error refuses the config (start-up, reload and
// `qeli check-config` alike); an unknown key is a likely typo (server files report it,
// client files treat it as an error); a warning is printed and the config is used.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace qeli::config {

enum class Severity { kError, kUnknownKey, kWarning };

struct Finding {
  Severity severity = Severity::kError;
  std::string file;     // path as given to the loader
  std::string section;  // e.g. "profile:main"; empty for the file as a whole
  std::string key;      // empty for a section-level or file-level finding
  int line = 0;         // 1-based; 0 when the finding is not tied to one line
  std::string message;

  /// "FILE:LINE: error: [SECTION] KEY: MESSAGE" (parts that are empty are left out).
  std::string to_string() const;
};

/// An ordered list of findings.
class Findings {
 public:
  void add(Finding f) { items_.push_back(std::move(f)); }
  void error(std::string_view file, std::string_view section, std::string_view key, int line,
             std::string message);
  void warning(std::string_view file, std::string_view section, std::string_view key, int line,
               std::string message);
  void append(const Findings& other);

  const std::vector<Finding>& all() const { return items_; }
  bool empty() const { return items_.empty(); }
  std::size_t count(Severity s) const;
  bool has_errors() const { return count(Severity::kError) > 0; }
  /// Errors or unknown keys: what `check-config` and a reload refuse.
  bool has_blocking() const { return has_errors() || count(Severity::kUnknownKey) > 0; }
  /// Every finding of `severity` whose message contains `needle` (tests, diagnostics).
  bool contains(Severity severity, std::string_view key, std::string_view needle) const;

 private:
  std::vector<Finding> items_;
};

}  // namespace qeli::config
