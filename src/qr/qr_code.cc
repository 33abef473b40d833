#include "qr/qr_code.h"

#include <qrencode.h>

#include <algorithm>
#include <string>

namespace qeli::qr {

std::optional<Matrix> encode(std::string_view text, int margin) {
  const std::string s(text);  // libqrencode wants a NUL-terminated string
  QRcode* qr = QRcode_encodeString8bit(s.c_str(), 0, QR_ECLEVEL_M);
  if (qr == nullptr) return std::nullopt;
  const int w = qr->width;
  const int size = w + 2 * margin;
  Matrix m(static_cast<std::size_t>(size),
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

std::string to_svg(const Matrix& m, int module_px) {
  module_px = std::clamp(module_px, 1, 64);
  const std::string n = std::to_string(m.size());
  const std::string px = std::to_string(m.size() * static_cast<std::size_t>(module_px));
  // viewBox in modules, so each dark run is one "M x y h len v1 h-len z" in whole units.
  std::string out = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + px + "\" height=\"" +
                    px + "\" viewBox=\"0 0 " + n + " " + n +
                    "\" shape-rendering=\"crispEdges\"><rect width=\"" + n + "\" height=\"" + n +
                    "\" fill=\"#fff\"/><path fill=\"#000\" d=\"";
  for (std::size_t y = 0; y < m.size(); ++y) {
    for (std::size_t x = 0; x < m[y].size();) {
      if (!m[y][x]) {
        ++x;
        continue;
      }
      std::size_t run = 0;
      while (x + run < m[y].size() && m[y][x + run]) ++run;
      out += "M" + std::to_string(x) + " " + std::to_string(y) + "h" + std::to_string(run) +
             "v1h-" + std::to_string(run) + "z";
      x += run;
    }
  }
  out += "\"/></svg>";
  return out;
}

}  // namespace qeli::qr
