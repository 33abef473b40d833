#include "cli/terminal_qr.h"

#include <gtest/gtest.h>

namespace qeli::cli {
namespace {

// The 7x7 finder pattern of ISO/IEC 18004 §6.3.3: dark ring, light ring, dark 3x3 core.
void expect_finder(const std::vector<std::vector<bool>>& m, std::size_t top, std::size_t left) {
  for (std::size_t y = 0; y < 7; ++y) {
    for (std::size_t x = 0; x < 7; ++x) {
      const bool ring = y == 0 || y == 6 || x == 0 || x == 6;
      const bool core = y >= 2 && y <= 4 && x >= 2 && x <= 4;
      EXPECT_EQ(m[top + y][left + x], ring || core) << "at " << y << "," << x;
    }
  }
}

TEST(terminal_qr, matrix_has_quiet_zone_and_finder_patterns) {
  const std::string link = "qeli://bob:pw@vpn.example.com:443?proto=tcp&mode=fake-tls";
  const auto m = qr_matrix(link, 2);
  ASSERT_TRUE(m);
  const std::size_t n = m->size();
  ASSERT_GE(n, 21U + 4);
  EXPECT_EQ((n - 4 - 17) % 4, 0U);  // QR widths are 17 + 4 * version
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t q = 0; q < 2; ++q) {
      EXPECT_FALSE((*m)[q][i]);
      EXPECT_FALSE((*m)[n - 1 - q][i]);
      EXPECT_FALSE((*m)[i][q]);
      EXPECT_FALSE((*m)[i][n - 1 - q]);
    }
  }
  expect_finder(*m, 2, 2);
  expect_finder(*m, 2, n - 2 - 7);
  expect_finder(*m, n - 2 - 7, 2);
  // Longer text needs a bigger symbol.
  EXPECT_GT(qr_matrix(link + std::string(300, 'x'))->size(), n);
}

TEST(terminal_qr, too_long_is_refused) { EXPECT_FALSE(qr_matrix(std::string(4000, 'x'))); }

TEST(terminal_qr, render_uses_half_blocks_two_rows_per_line) {
  const std::vector<std::vector<bool>> m = {{false, true}, {true, true}, {false, false}};
  // Not inverted: light modules are lit. Row 0/1: col0 light/dark = upper half; col1 none.
  EXPECT_EQ(render_qr(m), "\u2580 \n\u2588\u2588\n");
  EXPECT_EQ(render_qr(m, /*invert=*/true), "\u2584\u2588\n  \n");
}

}  // namespace
}  // namespace qeli::cli
