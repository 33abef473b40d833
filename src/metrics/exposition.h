// Exposition: one scrape's worth of metric families, written in the Prometheus text
// exposition format 0.0.4 (https://prometheus.io/docs/instrumenting/exposition_formats/).
//
//   Exposition e;
//   e.family("qeli_sessions", MetricType::kGauge, "Live sessions.").sample({{"profile", "main"}},
//   3); std::string body = e.text();
//
// Each family is written once, with one HELP and one TYPE line and all of its samples
// together, however the caller interleaves them (the format forbids a family in two
// places). Label values and HELP texts are escaped here; names are ours and are checked
// against the format's grammar (a bad one is a bug: it aborts in debug builds and the
// sample is dropped in release builds, so a scrape never fails to parse).
//
// Not thread-safe: one Exposition per scrape.
#pragma once

#include <cstdint>
#include <deque>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace qeli::metrics {

enum class MetricType { kCounter, kGauge };

struct Label {
  std::string_view name;
  std::string value;
};

/// The HTTP Content-Type of text().
inline constexpr std::string_view kContentType = "text/plain; version=0.0.4; charset=utf-8";

class Exposition {
 public:
  class Family {
   public:
    /// Adds a sample. The same label set twice in one family is the caller's bug.
    Family& sample(std::initializer_list<Label> labels, std::uint64_t value);
    Family& sample(std::initializer_list<Label> labels, std::int64_t value);
    Family& sample(std::initializer_list<Label> labels, double value);

   private:
    friend class Exposition;
    Family& add(std::initializer_list<Label> labels, std::string value);
    std::string name_;
    MetricType type_ = MetricType::kGauge;
    std::string help_;
    std::vector<std::string> lines_;  ///< "name{labels} value"
  };

  /// The family `name`, created on first use. A second call with another type is a bug.
  Family& family(std::string_view name, MetricType type, std::string_view help);
  /// Every family in first-use order: "# HELP", "# TYPE", then its samples.
  std::string text() const;

 private:
  std::deque<Family> families_;  ///< deque: a returned Family& stays valid
};

/// A label value as the format writes it between quotes: `\` `"` and newline escaped.
std::string escape_label_value(std::string_view v);
/// A HELP text as the format writes it: `\` and newline escaped.
std::string escape_help(std::string_view v);
/// [a-zA-Z_:][a-zA-Z0-9_:]* (metric names) / [a-zA-Z_][a-zA-Z0-9_]* without a leading
/// `__` (label names).
bool valid_metric_name(std::string_view s);
bool valid_label_name(std::string_view s);

}  // namespace qeli::metrics
