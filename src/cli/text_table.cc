#include "cli/text_table.h"

#include <algorithm>
#include <utility>

namespace qeli::cli {

namespace {
constexpr std::size_t kGap = 2;
}  // namespace

TextTable::TextTable(std::vector<std::string> headers) {
  has_header_ = !headers.empty();
  if (has_header_) rows_.push_back(std::move(headers));
}

void TextTable::add(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }

void TextTable::print(std::ostream& out) const {
  std::vector<std::size_t> width;
  for (const auto& r : rows_) {
    if (width.size() < r.size()) width.resize(r.size(), 0);
    for (std::size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], r[i].size());
  }
  std::size_t total = 0;
  for (std::size_t i = 0; i < width.size(); ++i)
    total += width[i] + (i + 1 < width.size() ? kGap : 0);
  bool header = has_header_;
  for (const auto& r : rows_) {
    std::string line;
    for (std::size_t i = 0; i < r.size(); ++i) {
      line += r[i];
      if (i + 1 < r.size()) line.append(width[i] + kGap - r[i].size(), ' ');
    }
    out << line << "\n";
    if (header && rule_) {
      for (std::size_t i = 0; i < total; ++i) out << "\u2500";
      out << "\n";
    }
    header = false;
  }
}

}  // namespace qeli::cli
