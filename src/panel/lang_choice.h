// Which language a page is in: the qeli_lang cookie when it holds "en" or "ru" (the
// header's switch sets it), else the browser's Accept-Language (RFC 9110 §12.5.4):
// Russian when a "ru" range ("ru", "ru-RU", …) has a higher weight than English —
// equal weights go to the range listed first — English otherwise. Pure functions.
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "panel/i18n.h"

namespace qeli::panel {

inline constexpr std::string_view kLangCookie = "qeli_lang";

/// The language an Accept-Language header prefers among English and Russian. Ranges
/// and q are case-insensitive; a malformed weight drops its range (q > 1 included); at
/// most 32 ranges are read.
Lang accept_language(std::string_view header);
/// "en" → kEn, "ru" → kRu, anything else nullopt.
std::optional<Lang> lang_of_code(std::string_view code);
/// The cookie's language (the first of `cookie_values` that names one), else the
/// header's.
Lang request_lang(std::string_view accept_language_header,
                  std::span<const std::string_view> cookie_values);

}  // namespace qeli::panel
