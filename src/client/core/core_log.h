// CoreLog: the client core's log lines, formatted here and handed to the host's sink
// (ClientEnv::log) — the core assumes no logging library. An empty sink drops them.
#pragma once

#include <fmt/format.h>

#include <functional>
#include <string_view>
#include <utility>

#include "client/core/client_env.h"

namespace qeli::client {

class CoreLog {
 public:
  using Sink = std::function<void(LogLevel, std::string_view)>;
  explicit CoreLog(const Sink& sink) : sink_(sink) {}

  template <class... A>
  void debug(fmt::format_string<A...> f, A&&... a) const {
    emit(LogLevel::kDebug, f, std::forward<A>(a)...);
  }
  template <class... A>
  void info(fmt::format_string<A...> f, A&&... a) const {
    emit(LogLevel::kInfo, f, std::forward<A>(a)...);
  }
  template <class... A>
  void warn(fmt::format_string<A...> f, A&&... a) const {
    emit(LogLevel::kWarn, f, std::forward<A>(a)...);
  }
  template <class... A>
  void error(fmt::format_string<A...> f, A&&... a) const {
    emit(LogLevel::kError, f, std::forward<A>(a)...);
  }

 private:
  template <class... A>
  void emit(LogLevel level, fmt::format_string<A...> f, A&&... a) const {
    if (sink_) sink_(level, fmt::format(f, std::forward<A>(a)...));
  }
  const Sink& sink_;
};

}  // namespace qeli::client
