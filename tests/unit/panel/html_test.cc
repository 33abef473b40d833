#include "panel/html.h"

#include <gtest/gtest.h>

namespace qeli::panel {
namespace {

TEST(html, escapes_the_five_special_characters) {
  EXPECT_EQ(escape("&<>\"'"), "&amp;&lt;&gt;&quot;&#39;");
  EXPECT_EQ(escape("<script>alert('x')</script>"),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;");
  EXPECT_EQ(escape("a&amp;b"), "a&amp;amp;b");
  EXPECT_EQ(escape("plain text é"), "plain text é");
  EXPECT_EQ(escape(""), "");
}

TEST(html, post_button_escapes_values_and_carries_the_csrf_token_first) {
  const std::string s =
      post_button("/p", "/users/disable", "tok\"", "Go", {{"user", "\"><b>x</b>"}}, true);
  EXPECT_EQ(s.find("<b>"), std::string::npos);
  EXPECT_NE(s.find("action=\"/p/users/disable\""), std::string::npos);
  const auto csrf = s.find("name=\"csrf\" value=\"tok&quot;\"");
  const auto user = s.find("name=\"user\" value=\"&quot;&gt;&lt;b&gt;x&lt;/b&gt;\"");
  ASSERT_NE(csrf, std::string::npos);
  ASSERT_NE(user, std::string::npos);
  EXPECT_LT(csrf, user);
  EXPECT_NE(s.find("class=\"danger\""), std::string::npos);
}

TEST(html, page_frame_escapes_title_and_admin) {
  const std::string s = render_page(
      {"<t>", "/base", "<adm>", "c", NavItem::kUsers, 0, Lang::kEn, "/users"}, "<p>content</p>");
  EXPECT_EQ(s.find("<t>"), std::string::npos);
  EXPECT_EQ(s.find("<adm>"), std::string::npos);
  EXPECT_NE(s.find("&lt;adm&gt;"), std::string::npos);
  EXPECT_NE(s.find("<p>content</p>"), std::string::npos);
  EXPECT_NE(s.find("href=\"/base/users\" class=\"active\""), std::string::npos);
  EXPECT_NE(s.find("action=\"/base/logout\""), std::string::npos);
  EXPECT_EQ(s.find("http-equiv=\"refresh\""), std::string::npos);
  // The login page: no navigation, no logout form.
  const std::string login =
      render_page({"Log in", "", "", "", NavItem::kNone, 0, Lang::kEn, ""}, "");
  EXPECT_EQ(login.find("<nav>"), std::string::npos);
  EXPECT_EQ(login.find("/logout"), std::string::npos);
}

}  // namespace
}  // namespace qeli::panel
