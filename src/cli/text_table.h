// Plain-text tables for the operator commands (list-clients, stats, list-blocked,
// list-users, usage): each column as wide as its widest cell plus two spaces, so a long
// counter name, user name or address never runs into the next column (fixed setw()
// widths did: `reality_bridged_unknown_short_id5`). The last column is not padded.
#pragma once

#include <ostream>
#include <sstream>
#include <string>
#include <vector>

namespace qeli::cli {

class TextTable {
 public:
  /// `headers` empty: no header line.
  explicit TextTable(std::vector<std::string> headers = {});

  /// One row; each cell is formatted as `operator<<` formats it.
  template <class... Cells>
  void row(const Cells&... cells) {
    add({cell(cells)...});
  }
  void add(std::vector<std::string> cells);

  /// A line of `─` (U+2500) under the header, as wide as the table: qeli 0.7.16 draws
  /// one under list-clients' and list-blocked's headers, and scripts written for it skip
  /// two lines before the rows.
  void rule_under_header() { rule_ = true; }

  void print(std::ostream& out) const;

 private:
  template <class T>
  static std::string cell(const T& v) {
    std::ostringstream s;
    s << v;
    return s.str();
  }

  std::vector<std::vector<std::string>> rows_;  // the header first, when there is one
  bool has_header_ = false;
  bool rule_ = false;
};

}  // namespace qeli::cli
