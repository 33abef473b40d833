// QR codes (ISO/IEC 18004) of qeli:// links: libqrencode makes the module matrix; the
// terminal (cli/terminal_qr.h) and the panel (an SVG image) draw it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace qeli::qr {

/// Rows of modules, true = dark; square.
using Matrix = std::vector<std::vector<bool>>;

/// The matrix of `text` encoded as 8-bit data with error-correction level M, plus a
/// quiet zone of `margin` light modules on every side. nullopt if the text does not fit
/// in a QR code (more than ~2.3 KB at level M).
std::optional<Matrix> encode(std::string_view text, int margin = 2);

/// `m` as a standalone SVG document: one `<path>` of the dark modules on a white square,
/// `module_px` CSS pixels per module (1..64, clamped), crisp edges. Contains no text from
/// the encoded data, so it needs no escaping wherever it is embedded.
std::string to_svg(const Matrix& m, int module_px = 4);

}  // namespace qeli::qr
