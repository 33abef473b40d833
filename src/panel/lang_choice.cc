#include "panel/lang_choice.h"

#include <optional>

namespace qeli::panel {
namespace {

constexpr int kMaxRanges = 32;

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool iequal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const char x = a[i] >= 'A' && a[i] <= 'Z' ? static_cast<char>(a[i] - 'A' + 'a') : a[i];
    if (x != b[i]) return false;
  }
  return true;
}

// The primary subtag's language ("ru-RU" → ru) matches `code`.
bool is_lang(std::string_view range, std::string_view code) {
  return iequal(range.substr(0, range.find('-')), code);
}

// A weight in thousandths: "q=0.8" → 800; nullopt when malformed (RFC 9110 §12.4.2:
// 0 to 1 with at most three decimals).
std::optional<int> weight(std::string_view param) {
  param = trimmed(param);
  if (param.size() < 3 || (param[0] != 'q' && param[0] != 'Q') || param[1] != '=') {
    return std::nullopt;
  }
  const std::string_view v = param.substr(2);
  if (v.empty() || (v[0] != '0' && v[0] != '1') || v.size() > 5) return std::nullopt;
  int whole = v[0] - '0', frac = 0;
  if (v.size() > 1) {
    if (v[1] != '.') return std::nullopt;
    const std::string_view digits = v.substr(2);
    for (std::size_t i = 0; i < 3; ++i) {
      const char c = i < digits.size() ? digits[i] : '0';
      if (c < '0' || c > '9') return std::nullopt;
      frac = frac * 10 + (c - '0');
    }
  }
  if (whole == 1 && frac != 0) return std::nullopt;
  return whole * 1000 + frac;
}

struct Best {
  int q = -1;     ///< -1: not listed
  int order = 0;  ///< position in the header (earlier wins a tie)
  void offer(int weight, int at) {
    if (weight > q) {
      q = weight;
      order = at;
    }
  }
};

}  // namespace

Lang accept_language(std::string_view header) {
  Best ru, en, any;
  for (int at = 0; !header.empty() && at < kMaxRanges; ++at) {
    const std::size_t comma = header.find(',');
    std::string_view item = header.substr(0, comma);
    header = comma == std::string_view::npos ? std::string_view{} : header.substr(comma + 1);
    const std::size_t semi = item.find(';');
    const std::string_view range = trimmed(item.substr(0, semi));
    int q = 1000;
    if (semi != std::string_view::npos) {
      const auto w = weight(item.substr(semi + 1));
      if (!w) continue;
      q = *w;
    }
    if (range == "*") {
      any.offer(q, at);
    } else if (is_lang(range, "ru")) {
      ru.offer(q, at);
    } else if (is_lang(range, "en")) {
      en.offer(q, at);
    }
  }
  // "*" stands for every language the header does not name.
  if (ru.q < 0) ru = any;
  if (en.q < 0) en = any;
  const bool russian = ru.q > 0 && (ru.q > en.q || (ru.q == en.q && ru.order < en.order));
  return russian ? Lang::kRu : Lang::kEn;
}

std::optional<Lang> lang_of_code(std::string_view code) {
  if (code == "en") return Lang::kEn;
  if (code == "ru") return Lang::kRu;
  return std::nullopt;
}

Lang request_lang(std::string_view accept_language_header,
                  std::span<const std::string_view> cookie_values) {
  for (const auto v : cookie_values) {
    if (const auto lang = lang_of_code(v)) return *lang;
  }
  return accept_language(accept_language_header);
}

}  // namespace qeli::panel
