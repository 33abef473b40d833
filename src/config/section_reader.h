// SectionReader: typed, validated access to one INI section.
//
// Every getter (1) marks the key as read, (2) returns the documented default when the
// key is absent, and (3) when the key is present but its value does not parse or is out
// of range, records an error Finding naming FILE, SECTION, KEY and line and returns the
// default — the caller never sees a half-parsed value, and because the finding is an
// error the config as a whole is refused. A single-valued key given twice is an error.
// finish() reports every key no getter asked for (typos).
#pragma once

#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "config/finding.h"
#include "config/ini_reader.h"
#include "config/ipv6_cidr.h"
#include "config/values.h"

namespace qeli::config {

class SectionReader {
 public:
  /// `unknown_severity`: kUnknownKey for server files, kError for the strict client.
  SectionReader(const IniSection& section, std::string file, Findings& findings,
                Severity unknown_severity = Severity::kUnknownKey);

  const std::string& name() const { return section_.name; }
  int line() const { return section_.line; }
  const std::string& file() const { return file_; }

  bool has(std::string_view key) const;
  /// The one entry for `key`, or null if absent (two entries: error, the last is used).
  const IniEntry* single(std::string_view key);
  /// Every entry for a repeatable key, in file order.
  std::vector<const IniEntry*> all(std::string_view key);
  /// Every entry whose key starts with `prefix` (e.g. "pool.reservation.").
  std::vector<const IniEntry*> with_prefix(std::string_view prefix);

  bool get_bool(std::string_view key, bool def);
  std::uint64_t get_uint(std::string_view key, std::uint64_t def, std::uint64_t min,
                         std::uint64_t max);
  template <class T>
  T get_u(std::string_view key, T def, T min, T max) {
    return static_cast<T>(get_uint(key, def, min, max));
  }
  std::int64_t get_int(std::string_view key, std::int64_t def, std::int64_t min, std::int64_t max);
  double get_double(std::string_view key, double def, double min, double max);
  std::string get_string(std::string_view key, std::string def);
  Ipv4Addr get_ipv4(std::string_view key, Ipv4Addr def);
  Ipv4Cidr get_cidr(std::string_view key, Ipv4Cidr def);
  /// Comma-separated list; repeated lines are concatenated in order.
  std::vector<std::string> get_list(std::string_view key, std::vector<std::string> def);
  std::vector<Ipv4Cidr> get_cidr_list(std::string_view key, bool allow_bare);
  /// Like get_cidr_list, but IPv6 networks (and addresses, with `allow_bare`) are taken
  /// too, into `v6`. `drop_bad`: an entry that is none of those is left out with a warning
  /// instead of an error (0.7.16's client reads its routing lists that way).
  std::vector<Ipv4Cidr> get_network_list(std::string_view key, bool allow_bare,
                                         std::vector<Ipv6Cidr>& v6, bool drop_bad = false);
  std::chrono::milliseconds get_ms(std::string_view key, std::chrono::milliseconds def,
                                   std::chrono::milliseconds min, std::chrono::milliseconds max);
  std::chrono::seconds get_secs(std::string_view key, std::chrono::seconds def,
                                std::chrono::seconds min, std::chrono::seconds max);

  template <class E>
  E get_enum(std::string_view key, E def,
             std::initializer_list<std::pair<std::string_view, E>> names) {
    const IniEntry* e = single(key);
    if (e == nullptr) return def;
    const std::string v = ascii_lower(e->value);
    std::string allowed;
    for (const auto& [n, val] : names) {
      if (v == n) return val;
      allowed += allowed.empty() ? std::string(n) : "|" + std::string(n);
    }
    bad_value(*e, "one of " + allowed);
    return def;
  }

  /// An error / warning about `key` in this section (line of its first entry if present).
  void error(std::string_view key, std::string message);
  void warning(std::string_view key, std::string message);
  void error_at(const IniEntry& e, std::string message);
  void bad_value(const IniEntry& e, std::string_view expected);

  /// True once an error was recorded about `key` (its value refused): checks that derive
  /// from that key's value should stay silent (they would judge the default instead).
  bool refused(std::string_view key) const;
  /// Reports every entry that no getter read. Call once, after the last getter.
  void finish();

 private:
  int line_of(std::string_view key) const;

  const IniSection& section_;
  std::string file_;
  Findings& findings_;
  Severity unknown_severity_;
  std::vector<bool> read_;
  std::vector<std::string> refused_;
  std::vector<std::string> asked_;  // every key a getter asked for: the section's known keys  //
                                    // keys with an error (few: a vector is enough)
};

}  // namespace qeli::config
