// The translation table and its small format: the Russian plural rule, placeholders that
// match, values escaped inside a translated sentence, and the fallback to English.
#include "panel/i18n.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace qeli::panel {
namespace {

std::set<std::string> placeholders(std::string_view s) {
  std::set<std::string> out;
  for (std::size_t open = s.find('{'); open != std::string_view::npos;
       open = s.find('{', open + 1)) {
    out.emplace(s.substr(open, s.find('}', open) - open + 1));
  }
  return out;
}

TEST(I18n, RussianPluralRule) {
  // n → the form CLDR's "ru" rule gives (1 сессия, 2 сессии, 5 сессий).
  const std::pair<std::uint64_t, RuPlural> cases[] = {
      {0, RuPlural::kMany},   {1, RuPlural::kOne},    {2, RuPlural::kFew},
      {4, RuPlural::kFew},    {5, RuPlural::kMany},   {11, RuPlural::kMany},
      {12, RuPlural::kMany},  {14, RuPlural::kMany},  {21, RuPlural::kOne},
      {22, RuPlural::kFew},   {25, RuPlural::kMany},  {101, RuPlural::kOne},
      {111, RuPlural::kMany}, {112, RuPlural::kMany}, {122, RuPlural::kFew},
      {1001, RuPlural::kOne}};
  for (const auto& [n, form] : cases) EXPECT_EQ(ru_plural(n), form) << n;
}

TEST(I18n, CountMessagesAgreeWithTheCount) {
  const std::string_view msg = "Ended {n} session(s).";
  EXPECT_EQ(tr_count(Lang::kEn, msg, 5), "Ended 5 session(s).");
  EXPECT_EQ(tr_count(Lang::kRu, msg, 1), "Завершён 1 сеанс.");
  EXPECT_EQ(tr_count(Lang::kRu, msg, 2), "Завершено 2 сеанса.");
  EXPECT_EQ(tr_count(Lang::kRu, msg, 5), "Завершено 5 сеансов.");
  EXPECT_EQ(tr_count(Lang::kRu, msg, 11), "Завершено 11 сеансов.");
  EXPECT_EQ(tr_count(Lang::kRu, msg, 21), "Завершён 21 сеанс.");
  EXPECT_EQ(tr_count(Lang::kRu, msg, 22), "Завершено 22 сеанса.");
  EXPECT_EQ(tr_count(Lang::kRu, msg, 25), "Завершено 25 сеансов.");
  EXPECT_EQ(tr_count(Lang::kRu, msg, 111), "Завершено 111 сеансов.");
}

TEST(I18n, EveryEntryNamesTheSamePlaceholdersAndCountsHaveThreeForms) {
  std::set<std::string_view> keys;
  for (const auto& t : russian_table()) {
    EXPECT_TRUE(keys.insert(t.en).second) << "twice: " << t.en;
    EXPECT_FALSE(t.ru.empty()) << t.en;
    const bool count = t.en.find("{n}") != std::string_view::npos;
    std::size_t forms = 1;
    for (const char c : t.ru) forms += c == '|' ? 1 : 0;
    EXPECT_EQ(forms, count ? 3U : 1U) << t.en;
    std::string_view rest = t.ru;
    for (std::size_t i = 0; i < forms; ++i) {
      const std::string_view form = rest.substr(0, rest.find('|'));
      EXPECT_EQ(placeholders(form), placeholders(t.en)) << t.en << " → " << form;
      rest.remove_prefix(std::min(rest.size(), form.size() + 1));
    }
  }
}

TEST(I18n, ValuesInsideATranslatedSentenceAreEscaped) {
  const std::string evil = "<script>alert(1)</script>";
  const std::string html = tr_html(Lang::kRu, "Back to {user}", {{"user", evil}});
  EXPECT_EQ(html, "Назад к &lt;script&gt;alert(1)&lt;/script&gt;");
  // tr_text leaves escaping to its sink (td(), a button's label).
  EXPECT_EQ(tr_text(Lang::kRu, "Remove {user}", {{"user", evil}}), "Удалить " + evil);
  EXPECT_EQ(tr_html(Lang::kEn, "Back to {user}", {{"user", "a&b"}}), "Back to a&amp;b");
}

TEST(I18n, AnUnknownStringFallsBackToEnglishAndIsReported) {
  missing_translations();  // forget earlier tests' misses
  EXPECT_EQ(tr(Lang::kRu, "No such phrase in the table"), "No such phrase in the table");
  EXPECT_EQ(tr(Lang::kEn, "Another unknown phrase"), "Another unknown phrase");
  const auto missed = missing_translations();
  ASSERT_EQ(missed.size(), 1U);  // English asks for nothing
  EXPECT_EQ(missed[0], "No such phrase in the table");
  EXPECT_TRUE(missing_translations().empty());
  EXPECT_EQ(tr(Lang::kRu, "Users"), "Пользователи");
}

}  // namespace
}  // namespace qeli::panel
