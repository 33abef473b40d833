#include "cli/terminal_qr.h"

namespace qeli::cli {

std::string render_qr(const qr::Matrix& m, bool invert) {
  // A character cell shows an upper and a lower module; a "lit" module is drawn with
  // the foreground colour. On a dark terminal the light modules must be lit.
  std::string out;
  const std::size_t rows = m.size();
  for (std::size_t y = 0; y < rows; y += 2) {
    for (std::size_t x = 0; x < m[y].size(); ++x) {
      const bool top_dark = m[y][x];
      const bool bottom_dark = y + 1 < rows ? m[y + 1][x] : false;
      const bool top = invert ? top_dark : !top_dark;
      const bool bottom = invert ? bottom_dark : !bottom_dark;  // past the end: light
      if (top && bottom) {
        out += "\u2588";
      } else if (top) {
        out += "\u2580";
      } else if (bottom) {
        out += "\u2584";
      } else {
        out += " ";
      }
    }
    out += "\n";
  }
  return out;
}

}  // namespace qeli::cli
