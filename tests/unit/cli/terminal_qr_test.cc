#include "cli/terminal_qr.h"

#include <gtest/gtest.h>

namespace qeli::cli {
namespace {

TEST(terminal_qr, render_uses_half_blocks_two_rows_per_line) {
  const qr::Matrix m = {{false, true}, {true, true}, {false, false}};
  // Not inverted: light modules are lit. Row 0/1: col0 light/dark = upper half; col1 none.
  EXPECT_EQ(render_qr(m), "\u2580 \n\u2588\u2588\n");
  EXPECT_EQ(render_qr(m, /*invert=*/true), "\u2584\u2588\n  \n");
}

}  // namespace
}  // namespace qeli::cli
