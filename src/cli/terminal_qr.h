// QR codes drawn in the terminal (the matrix: qr/qr_code.h), so `add-client --link` can be scanned
// by a phone straight from an SSH session.
#pragma once

#include <string>

#include "qr/qr_code.h"

namespace qeli::cli {

/// The matrix drawn with Unicode half blocks (U+2580/2584/2588), two module rows per
/// text line. Light modules are drawn in the foreground colour and dark ones left
/// blank, which scans on the usual dark-background terminal; `invert` draws the dark
/// modules instead, for light backgrounds.
std::string render_qr(const qr::Matrix& m, bool invert = false);

}  // namespace qeli::cli
