#include "qr/qr_code.h"

#include <gtest/gtest.h>

#include <regex>

namespace qeli::qr {
namespace {

// The 7x7 finder pattern of ISO/IEC 18004 §6.3.3: dark ring, light ring, dark 3x3 core.
void expect_finder(const Matrix& m, std::size_t top, std::size_t left) {
  for (std::size_t y = 0; y < 7; ++y) {
    for (std::size_t x = 0; x < 7; ++x) {
      const bool ring = y == 0 || y == 6 || x == 0 || x == 6;
      const bool core = y >= 2 && y <= 4 && x >= 2 && x <= 4;
      EXPECT_EQ(m[top + y][left + x], ring || core) << "at " << y << "," << x;
    }
  }
}

TEST(qr_code, matrix_has_quiet_zone_and_finder_patterns) {
  const std::string link = "qeli://bob:pw@vpn.example.com:443?proto=tcp&mode=fake-tls";
  const auto m = encode(link, 2);
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
  EXPECT_GT(encode(link + std::string(300, 'x'))->size(), n);
}

TEST(qr_code, too_long_is_refused) { EXPECT_FALSE(encode(std::string(4000, 'x'))); }

TEST(qr_code, svg_draws_every_dark_module_once_in_runs) {
  const Matrix m = {{true, true, false}, {false, true, false}, {false, false, false}};
  const std::string svg = to_svg(m, 5);
  EXPECT_NE(svg.find("width=\"15\" height=\"15\" viewBox=\"0 0 3 3\""), std::string::npos) << svg;
  EXPECT_NE(svg.find("d=\"M0 0h2v1h-2zM1 1h1v1h-1z\""), std::string::npos) << svg;
  EXPECT_EQ(svg.rfind("<svg", 0), 0U);
}

TEST(qr_code, svg_of_a_link_counts_the_matrix_dark_modules) {
  const auto m = encode("qeli://alice:qd1.0123abcd.secret@vpn.example.com:443?mode=plain");
  ASSERT_TRUE(m);
  std::size_t dark = 0;
  for (const auto& row : *m)
    for (bool b : row) dark += b ? 1 : 0;
  const std::string svg = to_svg(*m);
  std::size_t drawn = 0;
  const std::regex run("h([0-9]+)v1");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), run); it != std::sregex_iterator();
       ++it)
    drawn += std::stoul((*it)[1].str());
  EXPECT_EQ(drawn, dark);
  // Clamped module size: 0 px would be an invisible image.
  EXPECT_NE(to_svg(*m, 0).find("width=\"" + std::to_string(m->size()) + "\""), std::string::npos);
}

}  // namespace
}  // namespace qeli::qr
