#include "panel/i18n.h"

#include <mutex>
#include <set>
#include <unordered_map>

#include "panel/html.h"

namespace qeli::panel {
namespace {

constexpr std::size_t kMaxMisses = 256;

struct Misses {
  std::mutex mu;
  std::set<std::string> keys;
};
Misses& misses() {
  static Misses m;
  return m;
}

const std::unordered_map<std::string_view, std::string_view>& russian() {
  static const auto* map = [] {
    auto* m = new std::unordered_map<std::string_view, std::string_view>();
    for (const auto& t : russian_table()) m->emplace(t.en, t.ru);
    return m;
  }();
  return *map;
}

// `pattern` with each {name} of `args` replaced; an unknown {name} stays as it is (the
// table test checks that English and Russian name the same placeholders).
std::string fill(std::string_view pattern, TrArgs args, bool html) {
  std::string out;
  out.reserve(pattern.size() + 32);
  while (!pattern.empty()) {
    const std::size_t open = pattern.find('{');
    const std::size_t close = open == std::string_view::npos ? open : pattern.find('}', open);
    if (close == std::string_view::npos) break;
    out += pattern.substr(0, open);
    const std::string_view name = pattern.substr(open + 1, close - open - 1);
    bool found = false;
    for (const auto& [k, v] : args) {
      if (k != name) continue;
      out += html ? escape(v) : std::string(v);
      found = true;
      break;
    }
    if (!found) out += pattern.substr(open, close - open + 1);
    pattern.remove_prefix(close + 1);
  }
  return out + std::string(pattern);
}

// The table's entry, or `en` (remembered when Russian lacks it).
std::string_view lookup(Lang lang, std::string_view en) {
  if (lang == Lang::kEn) return en;
  const auto& map = russian();
  if (const auto it = map.find(en); it != map.end()) return it->second;
  auto& m = misses();
  std::lock_guard lock(m.mu);
  if (m.keys.size() < kMaxMisses) m.keys.emplace(en);
  return en;
}

}  // namespace

std::string_view lang_code(Lang lang) { return lang == Lang::kRu ? "ru" : "en"; }

std::string tr(Lang lang, std::string_view en) { return std::string(lookup(lang, en)); }

std::string tr_html(Lang lang, std::string_view pattern, TrArgs args) {
  return fill(lookup(lang, pattern), args, true);
}

std::string tr_text(Lang lang, std::string_view pattern, TrArgs args) {
  return fill(lookup(lang, pattern), args, false);
}

RuPlural ru_plural(std::uint64_t n) {
  const std::uint64_t ten = n % 10, hundred = n % 100;
  if (ten == 1 && hundred != 11) return RuPlural::kOne;
  if (ten >= 2 && ten <= 4 && (hundred < 12 || hundred > 14)) return RuPlural::kFew;
  return RuPlural::kMany;
}

std::string tr_count(Lang lang, std::string_view pattern, std::uint64_t n) {
  std::string_view forms = lookup(lang, pattern);
  if (lang == Lang::kRu && forms.find('|') != std::string_view::npos) {
    // one|few|many; an entry with fewer forms shows its last (the table test forbids it).
    for (int i = static_cast<int>(ru_plural(n)); i > 0; --i) {
      const std::size_t bar = forms.find('|');
      if (bar == std::string_view::npos) break;
      forms.remove_prefix(bar + 1);
    }
    forms = forms.substr(0, forms.find('|'));
  }
  const std::string count = std::to_string(n);
  return fill(forms, {{"n", count}}, false);
}

std::vector<std::string> missing_translations() {
  auto& m = misses();
  std::lock_guard lock(m.mu);
  std::vector<std::string> out(m.keys.begin(), m.keys.end());
  m.keys.clear();
  return out;
}

}  // namespace qeli::panel
