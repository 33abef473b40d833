// QR codes for the terminal (libqrencode), so `add-client --link` can be scanned by a
// phone straight from an SSH session.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace qeli::cli {

/// The module matrix of `text` encoded as 8-bit data with error-correction level M,
/// plus a quiet zone of `margin` light modules on every side. true = dark.
/// nullopt if the text does not fit in a QR code (more than ~2.3 KB).
std::optional<std::vector<std::vector<bool>>> qr_matrix(std::string_view text, int margin = 2);

/// The matrix drawn with Unicode half blocks (U+2580/2584/2588), two module rows per
/// text line. Light modules are drawn in the foreground colour and dark ones left
/// blank, which scans on the usual dark-background terminal; `invert` draws the dark
/// modules instead, for light backgrounds.
std::string render_qr(const std::vector<std::vector<bool>>& m, bool invert = false);

}  // namespace qeli::cli
