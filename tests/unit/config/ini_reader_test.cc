#include "config/ini_reader.h"

#include <gtest/gtest.h>

namespace qeli::config {
namespace {

TEST(ini_reader, sections_entries_and_lines) {
  Findings f;
  const auto doc = parse_ini(
      "# comment\n"
      "; another\n"
      "[auth]\n"
      "users_file = /x/users.conf\n"
      "\n"
      "[profile:main]\n"
      "route = 10.1.0.0/16\n"
      "  route=10.2.0.0/16  \n"
      "name = \"quoted value\"\n"
      "[web]\n",
      "t.conf", f);
  EXPECT_TRUE(f.empty());
  ASSERT_EQ(doc.sections.size(), 3U);
  EXPECT_EQ(doc.sections[0].name, "auth");
  EXPECT_EQ(doc.sections[0].line, 3);
  EXPECT_EQ(doc.sections[0].entries[0].line, 4);
  const auto& p = doc.sections[1];
  EXPECT_EQ(p.name, "profile:main");
  ASSERT_EQ(p.entries.size(), 3U);
  EXPECT_EQ(p.entries[0].value, "10.1.0.0/16");
  EXPECT_EQ(p.entries[1].value, "10.2.0.0/16");
  EXPECT_EQ(p.entries[1].line, 8);
  EXPECT_EQ(p.entries[2].value, "quoted value");
  EXPECT_EQ(doc.sections[2].name, "web");  // empty sections are kept
  EXPECT_TRUE(doc.sections[2].entries.empty());
}

TEST(ini_reader, inline_hash_and_semicolon_stay_in_the_value) {
  Findings f;
  const auto doc = parse_ini("[a]\nmtu = 1400 # max\nx = a;b ; c\n", "t", f);
  ASSERT_EQ(doc.sections.size(), 1U);
  EXPECT_EQ(doc.sections[0].entries[0].value, "1400 # max");
  EXPECT_EQ(doc.sections[0].entries[1].value, "a;b ; c");
}

TEST(ini_reader, syntax_error_names_the_line) {
  Findings f;
  parse_ini("[a]\nok = 1\nthis line has no equals\n", "bad.conf", f);
  ASSERT_EQ(f.all().size(), 1U);
  EXPECT_EQ(f.all()[0].line, 3);
  EXPECT_EQ(f.all()[0].file, "bad.conf");
  EXPECT_NE(f.all()[0].to_string().find("bad.conf:3: error:"), std::string::npos);
}

TEST(ini_reader, indented_line_is_not_a_continuation) {
  Findings f;
  parse_ini("[a]\nk = v\n   more\n", "t", f);
  ASSERT_EQ(f.all().size(), 1U);
  EXPECT_EQ(f.all()[0].line, 3);
}

TEST(ini_reader, long_lines_are_errors_not_truncated) {
  Findings f;
  const std::string big(kMaxLineBytes + 10, 'x');
  const auto doc = parse_ini("[a]\nk = " + big + "\nafter = 1\n", "t", f);
  ASSERT_TRUE(f.has_errors());
  EXPECT_EQ(f.all()[0].line, 2);
  ASSERT_EQ(doc.sections.size(), 1U);
  ASSERT_EQ(doc.sections[0].entries.size(), 1U);
  EXPECT_EQ(doc.sections[0].entries[0].key, "after");
  EXPECT_EQ(doc.sections[0].entries[0].line, 3);
  // Just below the limit the value is kept whole.
  Findings g;
  const std::string fits(kMaxLineBytes - 8, 'y');
  const auto ok = parse_ini("[a]\nk = " + fits + "\n", "t", g);
  EXPECT_TRUE(g.empty());
  EXPECT_EQ(ok.sections[0].entries[0].value, fits);
}

TEST(ini_reader, nul_bytes_are_errors) {
  Findings f;
  const auto doc = parse_ini(std::string("[a]\nk = ab\0cd\n", 14), "t", f);
  ASSERT_EQ(f.all().size(), 1U);
  EXPECT_EQ(f.all()[0].line, 2);
  EXPECT_TRUE(doc.sections[0].entries.empty());
}

TEST(ini_reader, long_key_names_are_kept_whole) {
  Findings f;
  const std::string key = "pool.reservation." + std::string(60, 'u');
  const auto doc = parse_ini("[profile:p]\n" + key + " = 10.9.0.5\n", "t", f);
  EXPECT_TRUE(f.empty());
  EXPECT_EQ(doc.sections[0].entries[0].key, key);
}

TEST(ini_reader, key_before_section_goes_to_unnamed_section) {
  Findings f;
  const auto doc = parse_ini("stray = 1\n[a]\n", "t", f);
  ASSERT_EQ(doc.sections.size(), 2U);
  EXPECT_EQ(doc.sections[0].name, "");
  EXPECT_EQ(doc.sections[0].entries[0].key, "stray");
}

TEST(ini_reader, crlf_and_bom) {
  Findings f;
  const auto doc = parse_ini("\xEF\xBB\xBF[a]\r\nk = v\r\n", "t", f);
  EXPECT_TRUE(f.empty());
  ASSERT_EQ(doc.sections.size(), 1U);
  EXPECT_EQ(doc.sections[0].name, "a");
  EXPECT_EQ(doc.sections[0].entries[0].value, "v");
}

TEST(ini_reader, missing_file_is_an_error) {
  Findings f;
  IniDocument doc;
  EXPECT_FALSE(read_ini_file("/nonexistent/qeli.conf", doc, f));
  ASSERT_TRUE(f.has_errors());
  EXPECT_EQ(f.all()[0].file, "/nonexistent/qeli.conf");
}

TEST(ini_reader, refuses_non_regular_files) {
  Findings f;
  IniDocument doc;
  EXPECT_FALSE(read_ini_file("/dev/zero", doc, f));  // would never end
  EXPECT_TRUE(f.contains(Severity::kError, "", "not a regular file"));
  Findings g;
  EXPECT_FALSE(read_ini_file("/tmp", doc, g));
  EXPECT_TRUE(g.has_errors());
}

}  // namespace
}  // namespace qeli::config
