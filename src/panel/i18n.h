// The panel's page text in English and Russian. English is the key: a page writes
// tr(lang, "Users") where it wrote "Users", so the English pages stay as they were and a
// missing Russian entry shows the English instead of nothing. Only the panel's own words
// are translated — names, reasons, config text and the server's messages are values, put
// into a translated sentence through a {name} placeholder (word order is the language's,
// never English order glued together). The JSON API, /metrics and log lines stay English.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace qeli::panel {

enum class Lang { kEn, kRu };

/// "en" or "ru" (the <html lang>, the qeli_lang cookie's value).
std::string_view lang_code(Lang lang);

/// One entry of the Russian table. A count message (its English has "{n}") has three
/// Russian forms separated by '|': one (1, 21), few (2-4, 22-24), many (0, 5-20, 25, 11-14).
struct Translation {
  std::string_view en;
  std::string_view ru;
};
std::span<const Translation> russian_table();

/// `en` in `lang`. In Russian an `en` the table lacks comes back as itself and is
/// remembered (missing_translations()): the page tests fail on it.
std::string tr(Lang lang, std::string_view en);

/// Values for a pattern's {name} placeholders.
using TrArgs = std::initializer_list<std::pair<std::string_view, std::string_view>>;
/// tr(lang, pattern) with every {name} replaced by its value HTML-escaped: markup.
std::string tr_html(Lang lang, std::string_view pattern, TrArgs args);
/// The same with the values as they are: text for a sink that escapes (td(), a button's
/// label, a page title, message_paragraph()).
std::string tr_text(Lang lang, std::string_view pattern, TrArgs args);
/// A count message: `pattern` has {n}; Russian takes the form ru_plural(n) names. Text.
std::string tr_count(Lang lang, std::string_view pattern, std::uint64_t n);

/// The Russian plural form of a count (the CLDR rule for "ru").
enum class RuPlural { kOne, kFew, kMany };
RuPlural ru_plural(std::uint64_t n);

/// The English keys asked for in Russian without an entry since the last call (then
/// forgotten). At most a few hundred are kept: a bug, not a growing set.
std::vector<std::string> missing_translations();

}  // namespace qeli::panel
