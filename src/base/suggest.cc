#include "base/suggest.h"

#include <algorithm>
#include <cctype>

namespace qeli {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Optimal string alignment: Levenshtein plus adjacent transpositions ("lsit" → "list").
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                                       std::tolower(static_cast<unsigned char>(b[j - 1]))
                                   ? 0
                                   : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

std::optional<std::string> closest_name(std::string_view word,
                                        const std::vector<std::string>& names) {
  if (word.size() >= 3) {
    for (const auto& n : names) {
      if (n.starts_with(word)) return n;
    }
  }
  const std::size_t limit = word.size() <= 4 ? 1 : 2;
  std::optional<std::string> best;
  std::size_t best_d = limit + 1;
  for (const auto& n : names) {
    // The distance is at least the difference in length: skip without the O(n·m) table
    // (a config key can be any length; only near-equal lengths can be a typo).
    const std::size_t gap =
        word.size() > n.size() ? word.size() - n.size() : n.size() - word.size();
    if (gap >= best_d) continue;
    const std::size_t dist = edit_distance(word, n);
    if (dist < best_d) {
      best_d = dist;
      best = n;
    }
  }
  return best;
}

}  // namespace qeli
