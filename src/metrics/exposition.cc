#include "metrics/exposition.h"

#include <cassert>
#include <cmath>
#include <cstdio>

namespace qeli::metrics {
namespace {

bool name_char(char c, bool first, bool colon) {
  const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  return alpha || (colon && c == ':') || (!first && c >= '0' && c <= '9');
}

bool valid_name(std::string_view s, bool colon) {
  if (s.empty()) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (!name_char(s[i], i == 0, colon)) return false;
  }
  return true;
}

// Go's strconv.ParseFloat (what Prometheus reads values with) takes these spellings.
std::string format_double(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.17g", v);
  return buf;
}

// `\` and newline always; `"` inside label values only (HELP keeps its quotes).
std::string escape(std::string_view v, bool quote) {
  std::string out;
  out.reserve(v.size());
  for (char c : v) {
    if (c == '\\' || (quote && c == '"')) {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string escape_label_value(std::string_view v) { return escape(v, /*quote=*/true); }

std::string escape_help(std::string_view v) { return escape(v, /*quote=*/false); }

bool valid_metric_name(std::string_view s) { return valid_name(s, /*colon=*/true); }

bool valid_label_name(std::string_view s) {
  return valid_name(s, /*colon=*/false) && !s.starts_with("__");
}

Exposition::Family& Exposition::family(std::string_view name, MetricType type,
                                       std::string_view help) {
  for (auto& f : families_) {
    if (f.name_ == name) {
      assert(f.type_ == type && "one metric family, one type");
      return f;
    }
  }
  assert(valid_metric_name(name));
  // A counter's samples are named like its family, and the conventions want `_total`.
  assert(type != MetricType::kCounter || name.ends_with("_total"));
  Family f;
  f.name_ = std::string(name);
  f.type_ = type;
  f.help_ = std::string(help);
  families_.push_back(std::move(f));
  return families_.back();
}

Exposition::Family& Exposition::Family::sample(std::initializer_list<Label> labels,
                                               std::uint64_t value) {
  return add(labels, std::to_string(value));
}

Exposition::Family& Exposition::Family::sample(std::initializer_list<Label> labels,
                                               std::int64_t value) {
  return add(labels, std::to_string(value));
}

Exposition::Family& Exposition::Family::sample(std::initializer_list<Label> labels, double value) {
  return add(labels, format_double(value));
}

Exposition::Family& Exposition::Family::add(std::initializer_list<Label> labels,
                                            std::string value) {
  if (!valid_metric_name(name_)) return *this;
  std::string line = name_;
  if (labels.size() > 0) {
    line += '{';
    bool first = true;
    for (const auto& l : labels) {
      assert(valid_label_name(l.name));
      if (!valid_label_name(l.name)) return *this;
      if (!first) line += ',';
      first = false;
      line += l.name;
      line += "=\"";
      line += escape_label_value(l.value);
      line += '"';
    }
    line += '}';
  }
  line += ' ';
  line += value;
  lines_.push_back(std::move(line));
  return *this;
}

std::string Exposition::text() const {
  std::string out;
  for (const auto& f : families_) {
    if (!valid_metric_name(f.name_)) continue;
    out += "# HELP " + f.name_ + ' ' + escape_help(f.help_) + '\n';
    out += "# TYPE " + f.name_ + (f.type_ == MetricType::kCounter ? " counter\n" : " gauge\n");
    for (const auto& l : f.lines_) {
      out += l;
      out += '\n';
    }
  }
  return out;
}

}  // namespace qeli::metrics
