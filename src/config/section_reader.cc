#include "config/section_reader.h"

#include <algorithm>

#include "base/suggest.h"

namespace qeli::config {

SectionReader::SectionReader(const IniSection& section, std::string file, Findings& findings,
                             Severity unknown_severity)
    : section_(section),
      file_(std::move(file)),
      findings_(findings),
      unknown_severity_(unknown_severity),
      read_(section.entries.size(), false) {}

bool SectionReader::has(std::string_view key) const {
  for (const auto& e : section_.entries) {
    if (e.key == key) return true;
  }
  return false;
}

const IniEntry* SectionReader::single(std::string_view key) {
  asked_.emplace_back(key);
  const IniEntry* found = nullptr;
  for (std::size_t i = 0; i < section_.entries.size(); ++i) {
    const auto& e = section_.entries[i];
    if (e.key != key) continue;
    read_[i] = true;
    if (found != nullptr) {
      error_at(e, "given more than once (first on line " + std::to_string(found->line) +
                      "); this key takes one value");
    }
    found = &e;
  }
  return found;
}

std::vector<const IniEntry*> SectionReader::all(std::string_view key) {
  asked_.emplace_back(key);
  std::vector<const IniEntry*> out;
  for (std::size_t i = 0; i < section_.entries.size(); ++i) {
    if (section_.entries[i].key == key) {
      read_[i] = true;
      out.push_back(&section_.entries[i]);
    }
  }
  return out;
}

std::vector<const IniEntry*> SectionReader::with_prefix(std::string_view prefix) {
  std::vector<const IniEntry*> out;
  for (std::size_t i = 0; i < section_.entries.size(); ++i) {
    if (section_.entries[i].key.starts_with(prefix)) {
      read_[i] = true;
      out.push_back(&section_.entries[i]);
    }
  }
  return out;
}

void SectionReader::bad_value(const IniEntry& e, std::string_view expected) {
  std::string msg = "`" + e.value + "` is not valid: expected " + std::string(expected);
  if (e.value.find('#') != std::string::npos || e.value.find(';') != std::string::npos) {
    msg +=
        " (comments must be on their own line: text after `=` up to the end of the line "
        "is the value)";
  }
  error_at(e, std::move(msg));
}

bool SectionReader::get_bool(std::string_view key, bool def) {
  const IniEntry* e = single(key);
  if (e == nullptr) return def;
  if (const auto v = parse_bool(e->value)) return *v;
  bad_value(*e, "true or false (also yes/no, on/off, 1/0)");
  return def;
}

std::uint64_t SectionReader::get_uint(std::string_view key, std::uint64_t def, std::uint64_t min,
                                      std::uint64_t max) {
  const IniEntry* e = single(key);
  if (e == nullptr) return def;
  const auto v = parse_uint(e->value, max);
  if (v && *v >= min) return *v;
  bad_value(*e, "an integer in " + std::to_string(min) + ".." + std::to_string(max));
  return def;
}

std::int64_t SectionReader::get_int(std::string_view key, std::int64_t def, std::int64_t min,
                                    std::int64_t max) {
  const IniEntry* e = single(key);
  if (e == nullptr) return def;
  if (const auto v = parse_int(e->value, min, max)) return *v;
  bad_value(*e, "an integer in " + std::to_string(min) + ".." + std::to_string(max));
  return def;
}

double SectionReader::get_double(std::string_view key, double def, double min, double max) {
  const IniEntry* e = single(key);
  if (e == nullptr) return def;
  const auto v = parse_double(e->value);
  if (v && *v >= min && *v <= max) return *v;
  bad_value(*e, "a number in [" + std::to_string(min) + ", " + std::to_string(max) + "]");
  return def;
}

std::string SectionReader::get_string(std::string_view key, std::string def) {
  const IniEntry* e = single(key);
  return e == nullptr ? def : e->value;
}

Ipv4Addr SectionReader::get_ipv4(std::string_view key, Ipv4Addr def) {
  const IniEntry* e = single(key);
  if (e == nullptr) return def;
  if (const auto v = Ipv4Addr::parse(e->value)) return *v;
  bad_value(*e, "an IPv4 address (a.b.c.d)");
  return def;
}

Ipv4Cidr SectionReader::get_cidr(std::string_view key, Ipv4Cidr def) {
  const IniEntry* e = single(key);
  if (e == nullptr) return def;
  if (const auto v = Ipv4Cidr::parse(e->value)) return *v;
  bad_value(*e, "an IPv4 network a.b.c.d/n with no host bits set");
  return def;
}

std::vector<std::string> SectionReader::get_list(std::string_view key,
                                                 std::vector<std::string> def) {
  const auto entries = all(key);
  if (entries.empty()) return def;
  std::vector<std::string> out;
  for (const auto* e : entries) {
    for (auto& item : split_list(e->value)) out.push_back(std::move(item));
  }
  return out;
}

std::vector<Ipv4Cidr> SectionReader::get_cidr_list(std::string_view key, bool allow_bare) {
  std::vector<Ipv4Cidr> out;
  for (const auto* e : all(key)) {
    for (const auto& item : split_list(e->value)) {
      if (const auto c = Ipv4Cidr::parse(item, allow_bare)) {
        out.push_back(*c);
      } else {
        error_at(
            *e,
            "`" + item + "` is not an IPv4 network a.b.c.d/n with no host bits set" +
                (allow_bare ? " or an IPv4 address" : "") +
                (Ipv6Cidr::parse(item, true) ? " (IPv6 networks are not supported here yet)" : ""));
      }
    }
  }
  return out;
}

std::vector<Ipv4Cidr> SectionReader::get_network_list(std::string_view key, bool allow_bare,
                                                      std::vector<Ipv6Cidr>& v6, bool drop_bad) {
  std::vector<Ipv4Cidr> out;
  for (const auto* e : all(key)) {
    for (const auto& item : split_list(e->value)) {
      if (const auto c = Ipv4Cidr::parse(item, allow_bare)) {
        out.push_back(*c);
      } else if (const auto c6 = Ipv6Cidr::parse(item, allow_bare)) {
        v6.push_back(*c6);
      } else {
        const std::string why = "`" + item +
                                "` is not a network a.b.c.d/n or x::/n with no host bits set" +
                                (allow_bare ? " or an address" : "");
        if (drop_bad) {
          warning(key, why + "; left out");
        } else {
          error_at(*e, why);
        }
      }
    }
  }
  return out;
}

std::chrono::milliseconds SectionReader::get_ms(std::string_view key, std::chrono::milliseconds def,
                                                std::chrono::milliseconds min,
                                                std::chrono::milliseconds max) {
  const auto v =
      get_uint(key, static_cast<std::uint64_t>(def.count()),
               static_cast<std::uint64_t>(min.count()), static_cast<std::uint64_t>(max.count()));
  return std::chrono::milliseconds{static_cast<std::int64_t>(v)};
}

std::chrono::seconds SectionReader::get_secs(std::string_view key, std::chrono::seconds def,
                                             std::chrono::seconds min, std::chrono::seconds max) {
  const auto v =
      get_uint(key, static_cast<std::uint64_t>(def.count()),
               static_cast<std::uint64_t>(min.count()), static_cast<std::uint64_t>(max.count()));
  return std::chrono::seconds{static_cast<std::int64_t>(v)};
}

int SectionReader::line_of(std::string_view key) const {
  for (const auto& e : section_.entries) {
    if (e.key == key) return e.line;
  }
  return section_.line;
}

void SectionReader::error(std::string_view key, std::string message) {
  refused_.emplace_back(key);
  findings_.error(file_, section_.name, key, line_of(key), std::move(message));
}

void SectionReader::warning(std::string_view key, std::string message) {
  findings_.warning(file_, section_.name, key, line_of(key), std::move(message));
}

void SectionReader::error_at(const IniEntry& e, std::string message) {
  refused_.push_back(e.key);
  findings_.error(file_, section_.name, e.key, e.line, std::move(message));
}

bool SectionReader::refused(std::string_view key) const {
  return std::find(refused_.begin(), refused_.end(), key) != refused_.end();
}

void SectionReader::finish() {
  for (std::size_t i = 0; i < section_.entries.size(); ++i) {
    if (read_[i]) continue;
    const auto& e = section_.entries[i];
    std::string msg = "unknown key (not read by qeli; a typo?)";
    // The keys this section's getters asked for are exactly the keys it knows.
    if (auto near = closest_name(e.key, asked_)) msg += " — did you mean `" + *near + "`?";
    findings_.add({unknown_severity_, file_, section_.name, e.key, e.line, std::move(msg)});
  }
}

}  // namespace qeli::config
