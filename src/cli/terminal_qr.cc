#include "cli/terminal_qr.h"

#include <qrencode.h>

#include <string>

namespace qeli::cli {

std::optional<std::vector<std::vector<bool>>> qr_matrix(std::string_view text, int margin) {
  const std::string s(text);  // libqrencode wants a NUL-terminated string
  QRcode* qr = QRcode_encodeString8bit(s.c_str(), 0, QR_ECLEVEL_M);
  if (qr == nullptr) return std::nullopt;
  const int w = qr->width;
  const int size = w + 2 * margin;
  std::vector<std::vector<bool>> m(static_cast<std::size_t>(size),
                                   std::vector<bool>(static_cast<std::size_t>(size), false));
  for (int y = 0; y < w; ++y) {
    for (int x = 0; x < w; ++x) {
      // Bit 0 of each module byte is its colour (qrencode.h, "QRcode" struct).
      m[static_cast<std::size_t>(y + margin)][static_cast<std::size_t>(x + margin)] =
          (qr->data[y * w + x] & 1) != 0;
    }
  }
  QRcode_free(qr);
  return m;
}

std::string render_qr(const std::vector<std::vector<bool>>& m, bool invert) {
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
