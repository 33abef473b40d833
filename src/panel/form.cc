#include "panel/form.h"

namespace qeli::panel {
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string_view FormFields::get(std::string_view name) const {
  for (const auto& [k, v] : fields_)
    if (k == name) return v;
  return {};
}

bool FormFields::has(std::string_view name) const {
  for (const auto& [k, v] : fields_)
    if (k == name) return true;
  return false;
}

std::optional<std::string> percent_decode(std::string_view s, bool plus_is_space) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '+' && plus_is_space) {
      out.push_back(' ');
    } else if (c == '%') {
      if (s.size() - i < 3) return std::nullopt;
      const int hi = hex_value(s[i + 1]), lo = hex_value(s[i + 2]);
      if (hi < 0 || lo < 0) return std::nullopt;
      out.push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::optional<FormFields> parse_form(std::string_view body) {
  FormFields f;
  std::size_t pos = 0;
  while (pos <= body.size()) {
    const std::size_t amp = body.find('&', pos);
    const std::string_view part =
        body.substr(pos, amp == std::string_view::npos ? std::string_view::npos : amp - pos);
    if (!part.empty()) {
      if (f.fields_.size() == kMaxFormFields) return std::nullopt;
      const std::size_t eq = part.find('=');
      auto name = percent_decode(part.substr(0, eq), true);
      auto value = percent_decode(
          eq == std::string_view::npos ? std::string_view{} : part.substr(eq + 1), true);
      if (!name || !value) return std::nullopt;
      f.fields_.emplace_back(std::move(*name), std::move(*value));
    }
    if (amp == std::string_view::npos) break;
    pos = amp + 1;
  }
  return f;
}

std::string percent_encode(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    const bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                            (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' || c == '~';
    if (unreserved) {
      out.push_back(ch);
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

}  // namespace qeli::panel
