// The flat INI of qeli 0.7.16 (reference §5.1), read with inih (Debian libinih).
//
// Format, as the reference implementation reads it:
//   * `key = value` lines inside `[section]` headers; whitespace around both is trimmed.
//   * Comments are whole lines that start with `#` or `;`. There are NO inline comments:
//     in `mtu = 1400 # max` the value is `1400 # max` (and then fails to parse as a
//     number, which the loader reports with a hint). inih's inline `;` comments and
//     multi-line continuation are switched off so `a;b` and indented lines are literal.
//   * A value wrapped in double quotes has them stripped (`name = "my vpn"`).
//   * Keys may repeat; every occurrence is kept, in file order, with its line number.
//     Whether a repeat is allowed is decided by the typed loader, not here.
//   * Lines may be up to kMaxLineBytes long; longer lines are an error, never truncated.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"
#include "config/finding.h"

namespace qeli::config {

inline constexpr std::size_t kMaxLineBytes = 16 * 1024;
inline constexpr std::size_t kMaxFileBytes = 4 * 1024 * 1024;

struct IniEntry {
  std::string key;
  std::string value;  // trimmed, surrounding double quotes removed
  int line = 0;       // 1-based
};

struct IniSection {
  std::string name;  // text between the brackets, e.g. "profile:main"; "" = before any header
  int line = 0;      // line of the header (0 for the implicit leading section)
  std::vector<IniEntry> entries;
};

struct IniDocument {
  std::string file;                  // the name used in findings
  std::vector<IniSection> sections;  // in file order; a repeated header is a new element
};

/// Parses INI text. Syntax errors (a line that is neither a comment, a header nor
/// `key = value`; an over-long line) are returned as error findings naming `file` and
/// the line; the document holds everything that did parse.
IniDocument parse_ini(std::string_view text, std::string_view file, Findings& findings);

/// Reads a whole config file into `out`. Refused (error finding, false): a path that
/// cannot be opened, is not a regular file (a FIFO or /dev/zero would never end), or is
/// larger than kMaxFileBytes.
bool read_config_text(const std::string& path, std::string& out, Findings& findings);

/// Reads the config file at `path` and returns `load_text(text)`: a `Load` such as
/// ClientLoad or ServerLoad ({config, findings}). A file that cannot be read (see
/// read_config_text) gives a Load with only `config.file` set and the read error as its
/// findings, so the caller reports it as it reports a bad config.
template <class Load, class LoadText>
Load load_config_file(const std::string& path, LoadText&& load_text) {
  std::string text;
  Findings read_errors;
  if (!read_config_text(path, text, read_errors)) {
    Load out;
    out.config.file = path;
    out.findings = std::move(read_errors);
    return out;
  }
  return std::forward<LoadText>(load_text)(text);
}

/// Reads and parses a file. A missing or unreadable file is an error finding (line 0).
/// Returns false if the file could not be read at all.
bool read_ini_file(const std::string& path, IniDocument& out, Findings& findings);

}  // namespace qeli::config
