// application/x-www-form-urlencoded bodies and query strings (WHATWG URL §5.1): the
// panel's forms post their fields this way. Pure and bounded: at most kMaxFields fields;
// a malformed percent escape refuses the whole body (nullopt) rather than guessing.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace qeli::panel {

inline constexpr std::size_t kMaxFormFields = 64;

class FormFields {
 public:
  /// The first value of `name`, or empty.
  std::string_view get(std::string_view name) const;
  bool has(std::string_view name) const;
  const std::vector<std::pair<std::string, std::string>>& all() const { return fields_; }

 private:
  friend std::optional<FormFields> parse_form(std::string_view body);
  std::vector<std::pair<std::string, std::string>> fields_;
};

/// Parses "a=1&b=x%20y+z". nullopt: a bad escape ("%G1", "%2"), or more than
/// kMaxFormFields fields.
std::optional<FormFields> parse_form(std::string_view body);

/// Percent-decodes `s` ('+' is a space only when `plus_is_space`). nullopt on a bad escape.
std::optional<std::string> percent_decode(std::string_view s, bool plus_is_space);

/// Percent-encodes everything but RFC 3986 unreserved characters (for links and forms).
std::string percent_encode(std::string_view s);

}  // namespace qeli::panel
