// The page language from Accept-Language and the qeli_lang cookie (panel/lang_choice.h).
#include "panel/lang_choice.h"

#include <gtest/gtest.h>

#include <vector>

namespace qeli::panel {
namespace {

TEST(LangChoice, AcceptLanguageWeighsRussianAgainstEnglish) {
  const std::pair<const char*, Lang> cases[] = {
      {"ru", Lang::kRu},
      {"ru-RU", Lang::kRu},
      {"RU-ru", Lang::kRu},  // case-insensitive (RFC 4647 §2.1)
      {"ru-RU,ru;q=0.9,en-US;q=0.8,en;q=0.7", Lang::kRu},
      {"en-US,en;q=0.9,ru;q=0.8", Lang::kEn},
      {"en;q=0.5, ru;q=0.6", Lang::kRu},  // q-values, not order
      {"ru;q=0.5, en;q=0.6", Lang::kEn},
      {"ru;Q=0.9, en;q=0.8", Lang::kRu},
      {"de-DE,ru;q=0.5", Lang::kRu},  // German is not offered: Russian is the best left
      {"de-DE,fr;q=0.5", Lang::kEn},
      {"ru, en", Lang::kRu},  // a tie goes to the range listed first
      {"en, ru", Lang::kEn},
      {"ru;q=0", Lang::kEn},  // "not acceptable"
      {"*", Lang::kEn},
      {"ru;q=0.1, *;q=0.5", Lang::kEn},  // "*" weighs the languages not named: English
      {"en;q=0.1, *;q=0.5", Lang::kRu},
      {"", Lang::kEn},
      {"russian", Lang::kEn},  // not the subtag "ru"
      {"rus", Lang::kEn},
  };
  for (const auto& [header, lang] : cases) EXPECT_EQ(accept_language(header), lang) << header;
}

TEST(LangChoice, MalformedWeightsDropTheirRange) {
  const std::pair<const char*, Lang> cases[] = {
      {"ru;q=2, en;q=0.1", Lang::kEn},  // q > 1
      {"ru;q=1.5", Lang::kEn},
      {"ru;q=abc", Lang::kEn},
      {"ru;q=", Lang::kEn},
      {"ru;q=0.1234", Lang::kEn},  // four decimals
      {"ru;x=1", Lang::kEn},
      {"ru;q=0.9x, en;q=0.1", Lang::kEn},
      {";;;,,,ru", Lang::kRu},  // empty items are nothing
      {"en;q=0.1,ru;q=1.000", Lang::kRu},
      {"en;q=0.1, ru ; q=0.5", Lang::kRu},  // spaces around the semicolon are allowed
      {"en;q=0.1, ru;q =0.5", Lang::kEn},   // but not inside the weight
  };
  for (const auto& [header, lang] : cases) EXPECT_EQ(accept_language(header), lang) << header;
  // Only the first 32 ranges are read: a Russian range after them does not count.
  std::string long_header;
  for (int i = 0; i < 40; ++i) long_header += "x" + std::to_string(i) + ",";
  EXPECT_EQ(accept_language(long_header + "ru"), Lang::kEn);
}

TEST(LangChoice, TheCookieOverridesTheHeader) {
  const std::vector<std::string_view> en = {"en"}, ru = {"ru"}, none;
  const std::vector<std::string_view> junk_then_en = {"fr", "en"};
  EXPECT_EQ(request_lang("ru-RU", en), Lang::kEn);
  EXPECT_EQ(request_lang("en-US", ru), Lang::kRu);
  EXPECT_EQ(request_lang("ru-RU", none), Lang::kRu);
  EXPECT_EQ(request_lang("ru-RU", junk_then_en), Lang::kEn);
  const std::vector<std::string_view> junk = {"RU", "ru-RU", ""};  // exact values only
  EXPECT_EQ(request_lang("en", junk), Lang::kEn);
  EXPECT_EQ(request_lang("ru", junk), Lang::kRu);
}

}  // namespace
}  // namespace qeli::panel
