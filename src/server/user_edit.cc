#include "server/user_edit.h"

#include <charconv>
#include <cmath>
#include <string>

#include "config/values.h"

namespace qeli::server {
namespace {

using control::ControlError;
using control::ErrorCode;

// The shortest text that reads back as `v` (strtod, the loader's parser).
std::string number(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return {buf, r.ptr};
}

std::vector<std::string> one_or_none(const std::string& v, bool none) {
  return none ? std::vector<std::string>{} : std::vector<std::string>{v};
}

}  // namespace

Result<std::vector<config::KeyLines>, ControlError> user_key_lines(const control::EditUser& r,
                                                                   const control::UserInfo& now) {
  std::vector<config::KeyLines> out;
  // Each list element trimmed; one that is empty or holds a ',' is refused (the file's
  // lists are comma-separated).
  std::optional<ControlError> refused;
  const auto list = [&](const char* field, const std::vector<std::string>& in) {
    std::vector<std::string> v;
    for (const auto& x : in) {
      const auto t = config::trim(x);
      if (t.empty() || t.find(',') != std::string_view::npos) {
        refused = ControlError{ErrorCode::kInvalid, std::string("\"") + field +
                                                        "\": one non-empty value per element "
                                                        "(no ',')"};
      }
      v.emplace_back(t);
    }
    return v;
  };
  const auto joined = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
  };
  const auto text = [&](const char* key, const std::optional<std::string>& want,
                        const std::string& is) {
    if (!want) return;
    const std::string v(config::trim(*want));
    if (v != is) out.push_back({key, one_or_none(v, v.empty())});
  };
  const auto list_key = [&](const char* key, const char* field,
                            const std::optional<std::vector<std::string>>& want,
                            const std::vector<std::string>& is, bool one_line) {
    if (!want) return;
    const auto v = list(field, *want);
    if (v == is) return;
    if (one_line) {
      out.push_back({key, one_or_none(joined(v), v.empty())});
    } else {
      out.push_back({key, v});
    }
  };
  const auto num = [&](const char* key, const char* field, const std::optional<double>& want,
                       double is) {
    if (!want || *want == is) return;
    if (!std::isfinite(*want)) {
      refused = ControlError{ErrorCode::kInvalid, std::string("\"") + field + "\": not a number"};
      return;
    }
    out.push_back({key, one_or_none(number(*want), *want == 0)});
  };

  text("group", r.group, now.group);
  text("static_ip", r.static_ip, now.static_ip);
  if (r.max_sessions && *r.max_sessions != now.max_sessions) {
    out.push_back(
        {"max_sessions", one_or_none(std::to_string(*r.max_sessions), *r.max_sessions == 0)});
  }
  list_key("profiles", "profiles", r.profiles, now.profiles, true);
  list_key("route", "routes", r.routes, now.routes, false);  // one `route` line each
  list_key("allowed_networks", "allowed_networks", r.allowed_networks, now.allowed_networks, true);
  num("bandwidth.limit_mbps", "bandwidth_limit_mbps", r.bandwidth_limit_mbps,
      now.bandwidth_limit_mbps);
  num("data_limit_gb", "data_limit_gb", r.data_limit_gb, now.data_limit_gb);
  if (r.expire_at && *r.expire_at != now.expire_at.value_or(0)) {
    out.push_back({"expire_at", one_or_none(std::to_string(*r.expire_at), *r.expire_at == 0)});
  }
  if (r.enabled && *r.enabled != now.enabled) {
    out.push_back({"enabled", one_or_none("false", *r.enabled)});
  }
  if (refused) return fail(std::move(*refused));
  return out;
}

}  // namespace qeli::server
