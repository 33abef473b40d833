#include "control/api_json.h"

#include <array>
#include <concepts>
#include <limits>
#include <utility>

namespace qeli::control {
namespace {

using json = nlohmann::json;

ControlError bad(std::string m) { return {ErrorCode::kBadRequest, std::move(m)}; }

// Reads an optional member into `out`; a present member of the wrong type is an error.
std::optional<ControlError> read(const json& j, const char* key, std::string& out, bool required) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) {
    if (required) return bad(std::string("\"") + key + "\" is required");
    return std::nullopt;
  }
  if (!it->is_string()) return bad(std::string("\"") + key + "\" must be a string");
  out = it->get<std::string>();
  return std::nullopt;
}

template <class U>
std::optional<ControlError> read_uint(const json& j, const char* key, U& out, std::uint64_t max) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::nullopt;
  // A non-negative integer (nlohmann keeps a positive literal built in C++ as signed).
  const bool whole =
      it->is_number_unsigned() || (it->is_number_integer() && it->get<std::int64_t>() >= 0);
  if (!whole || it->get<std::uint64_t>() > max) {
    return bad(std::string("\"") + key + "\" must be an integer in 0.." + std::to_string(max));
  }
  out = static_cast<U>(it->get<std::uint64_t>());
  return std::nullopt;
}

// ---- per-request field codecs ----------------------------------------------------------
// decode(j, r) fills r's fields (returning the first error); encode(r, j) writes them.

template <class R>
std::optional<ControlError> decode(const json&, R&) {
  return std::nullopt;  // requests without fields
}
template <class R>
void encode(const R&, json&) {}

std::optional<ControlError> decode(const json& j, Kick& r) {
  if (auto e = read(j, "username", r.username, true)) return e;
  std::uint64_t id = 0;
  if (j.contains("session_id") && !j["session_id"].is_null()) {
    if (auto e = read_uint(j, "session_id", id, UINT64_MAX)) return e;
    r.session_id = id;
  }
  if (auto e = read(j, "reason", r.reason, false)) return e;
  if (r.reason != "kicked" && r.reason != "credentials-changed") {
    return bad("\"reason\" must be kicked or credentials-changed");
  }
  return std::nullopt;
}
void encode(const Kick& r, json& j) {
  j["username"] = r.username;
  if (r.session_id) j["session_id"] = *r.session_id;
  j["reason"] = r.reason;
}
std::optional<ControlError> decode(const json& j, SetBandwidth& r) {
  if (auto e = read(j, "username", r.username, true)) return e;
  auto it = j.find("mbps");
  if (it == j.end() || !it->is_number() || it->get<double>() < 0 || it->get<double>() > 1e6) {
    return bad("\"mbps\" must be a number in 0..1000000");
  }
  r.mbps = it->get<double>();
  return std::nullopt;
}
void encode(const SetBandwidth& r, json& j) {
  j["username"] = r.username;
  j["mbps"] = r.mbps;
}
// The requests whose one field is the user they act on: one codec for all of them.
template <class R>
concept UserOnlyRequest =
    std::same_as<R, ResetUsage> || std::same_as<R, DisableUser> || std::same_as<R, EnableUser>;
template <UserOnlyRequest R>
std::optional<ControlError> decode(const json& j, R& r) {
  return read(j, "username", r.username, true);
}
template <UserOnlyRequest R>
void encode(const R& r, json& j) {
  j["username"] = r.username;
}
std::optional<ControlError> decode(const json& j, Unblock& r) { return read(j, "ip", r.ip, true); }
void encode(const Unblock& r, json& j) { j["ip"] = r.ip; }
std::optional<ControlError> decode(const json& j, GetEvents& r) {
  if (auto e = read_uint(j, "after", r.after, UINT64_MAX)) return e;
  if (auto e = read_uint(j, "limit", r.limit, 1000)) return e;
  if (r.limit == 0) r.limit = 1;
  return std::nullopt;
}
void encode(const GetEvents& r, json& j) {
  j["after"] = r.after;
  j["limit"] = r.limit;
}
std::optional<ControlError> decode(const json& j, GetWebhookLog& r) {
  if (auto e = read_uint(j, "limit", r.limit, 1000)) return e;
  if (r.limit == 0) r.limit = 1;
  return std::nullopt;
}
void encode(const GetWebhookLog& r, json& j) { j["limit"] = r.limit; }
std::optional<ControlError> decode(const json& j, GetLogs& r) {
  if (auto e = read_uint(j, "after", r.after, UINT64_MAX)) return e;
  if (auto e = read_uint(j, "limit", r.limit, 1000)) return e;
  if (r.limit == 0) r.limit = 1;
  return read(j, "level", r.level, false);
}
void encode(const GetLogs& r, json& j) {
  j["after"] = r.after;
  j["limit"] = r.limit;
  j["level"] = r.level;
}
std::optional<ControlError> decode(const json& j, ValidateConfig& r) {
  return read(j, "text", r.text, true);
}
void encode(const ValidateConfig& r, json& j) { j["text"] = r.text; }
std::optional<ControlError> decode(const json& j, SaveConfig& r) {
  if (auto e = read(j, "text", r.text, true)) return e;
  if (auto e = read(j, "base_sha256", r.base_sha256, true)) return e;
  return read(j, "actor", r.actor, false);
}
void encode(const SaveConfig& r, json& j) {
  j["text"] = r.text;
  j["base_sha256"] = r.base_sha256;
  j["actor"] = r.actor;
}
std::optional<ControlError> decode(const json& j, GetConfigVersion& r) {
  return read(j, "id", r.id, true);
}
void encode(const GetConfigVersion& r, json& j) { j["id"] = r.id; }

std::optional<ControlError> decode(const json& j, AddUser& r) {
  if (auto e = read(j, "username", r.username, true)) return e;
  if (auto e = read_uint(j, "max_sessions", r.max_sessions, 1'000'000)) return e;
  if (auto it = j.find("profiles"); it != j.end() && !it->is_null()) {
    if (!it->is_array() || it->size() > 256) return bad("\"profiles\" must be an array of names");
    for (const auto& p : *it) {
      if (!p.is_string()) return bad("\"profiles\" must be an array of names");
      r.profiles.push_back(p.get<std::string>());
    }
  }
  return read(j, "actor", r.actor, false);
}
void encode(const AddUser& r, json& j) {
  j["username"] = r.username;
  j["profiles"] = r.profiles;
  j["max_sessions"] = r.max_sessions;
  j["actor"] = r.actor;
}
std::optional<ControlError> decode(const json& j, RemoveUser& r) {
  if (auto e = read(j, "username", r.username, true)) return e;
  return read(j, "actor", r.actor, false);
}
void encode(const RemoveUser& r, json& j) {
  j["username"] = r.username;
  j["actor"] = r.actor;
}
std::optional<ControlError> decode(const json& j, AddDevice& r) {
  if (auto e = read(j, "username", r.username, true)) return e;
  if (auto e = read(j, "name", r.name, true)) return e;
  if (auto e = read(j, "host", r.host, false)) return e;
  if (auto e = read(j, "profile", r.profile, false)) return e;
  return read(j, "actor", r.actor, false);
}
void encode(const AddDevice& r, json& j) {
  j["username"] = r.username;
  j["name"] = r.name;
  j["host"] = r.host;
  j["profile"] = r.profile;
  j["actor"] = r.actor;
}
std::optional<ControlError> decode(const json& j, RevokeDevice& r) {
  if (auto e = read(j, "username", r.username, true)) return e;
  if (auto e = read(j, "id", r.id, true)) return e;
  return read(j, "actor", r.actor, false);
}
void encode(const RevokeDevice& r, json& j) {
  j["username"] = r.username;
  j["id"] = r.id;
  j["actor"] = r.actor;
}

// edit-user: every field optional; a member that is absent or null keeps the user's value.
template <class T>
std::optional<ControlError> read_opt(const json& j, const char* key, std::optional<T>& out) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::nullopt;
  const std::string k = std::string("\"") + key + "\"";
  if constexpr (std::is_same_v<T, std::string>) {
    if (!it->is_string()) return bad(k + " must be a string");
  } else if constexpr (std::is_same_v<T, bool>) {
    if (!it->is_boolean()) return bad(k + " must be true or false");
  } else if constexpr (std::is_same_v<T, double>) {
    if (!it->is_number()) return bad(k + " must be a number");
  } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
    if (!it->is_array() || it->size() > 1024) return bad(k + " must be an array of strings");
    for (const auto& x : *it) {
      if (!x.is_string()) return bad(k + " must be an array of strings");
    }
  } else {
    T v{};
    if (auto e = read_uint(j, key, v, std::numeric_limits<T>::max())) return e;
    out = v;
    return std::nullopt;
  }
  out = it->get<T>();
  return std::nullopt;
}
std::optional<ControlError> decode(const json& j, EditUser& r) {
  if (auto e = read(j, "username", r.username, true)) return e;
  if (auto e = read(j, "actor", r.actor, false)) return e;
  if (auto e = read_opt(j, "group", r.group)) return e;
  if (auto e = read_opt(j, "static_ip", r.static_ip)) return e;
  if (auto e = read_opt(j, "max_sessions", r.max_sessions)) return e;
  if (auto e = read_opt(j, "profiles", r.profiles)) return e;
  if (auto e = read_opt(j, "routes", r.routes)) return e;
  if (auto e = read_opt(j, "allowed_networks", r.allowed_networks)) return e;
  if (auto e = read_opt(j, "bandwidth_limit_mbps", r.bandwidth_limit_mbps)) return e;
  if (auto e = read_opt(j, "data_limit_gb", r.data_limit_gb)) return e;
  if (auto e = read_opt(j, "expire_at", r.expire_at)) return e;
  return read_opt(j, "enabled", r.enabled);
}
void encode(const EditUser& r, json& j) {
  j["username"] = r.username;
  j["actor"] = r.actor;
  const auto put = [&j](const char* key, const auto& v) {
    if (v) j[key] = *v;
  };
  put("group", r.group);
  put("static_ip", r.static_ip);
  put("max_sessions", r.max_sessions);
  put("profiles", r.profiles);
  put("routes", r.routes);
  put("allowed_networks", r.allowed_networks);
  put("bandwidth_limit_mbps", r.bandwidth_limit_mbps);
  put("data_limit_gb", r.data_limit_gb);
  put("expire_at", r.expire_at);
  put("enabled", r.enabled);
}

// A Request alternative chosen by name, at compile time.
template <std::size_t I = 0>
Result<Request, ControlError> decode_by_name(std::string_view name, const json& j) {
  if constexpr (I == std::variant_size_v<Request>) {
    return fail(ControlError{ErrorCode::kUnknownCommand,
                             "unknown command '" + std::string(name.substr(0, 64)) + "'"});
  } else {
    using R = std::variant_alternative_t<I, Request>;
    if (name != R::kName) return decode_by_name<I + 1>(name, j);
    R r;
    if (auto e = decode(j, r)) return fail(std::move(*e));
    return Request{std::move(r)};
  }
}

void encode_fields(const Empty&, json&) {}
// The envelope's keys (encode_reply, encode_error): no reply may carry a field named so
// (tests/unit/control/api_json_test.cc checks every reply type).
template <class T>
void encode_fields(const T& v, json& j) {
  json fields = v;
  for (auto& [k, val] : fields.items()) j[k] = val;
}

constexpr std::array<std::pair<ErrorCode, std::string_view>, 8> kCodes{{
    {ErrorCode::kBadRequest, "bad_request"},
    {ErrorCode::kUnknownCommand, "unknown_command"},
    {ErrorCode::kForbidden, "forbidden"},
    {ErrorCode::kNotFound, "not_found"},
    {ErrorCode::kConflict, "conflict"},
    {ErrorCode::kInvalid, "invalid"},
    {ErrorCode::kUnavailable, "unavailable"},
    {ErrorCode::kInternal, "internal"},
}};

}  // namespace

void to_json(json& j, const ClientStatusReport& r) {
  j = json{{"state", r.state},     {"state_since", r.state_since},
           {"server", r.server},   {"user", r.user},
           {"proto", r.proto},     {"mode", r.mode},
           {"started", r.started}, {"sessions", r.sessions},
           {"now", r.now}};
  if (!r.detail.empty()) j["detail"] = r.detail;
  if (!r.last_session_end.empty()) j["last_session_end"] = r.last_session_end;
  if (r.tunnel) {
    const json tunnel = *r.tunnel;
    for (const auto& [k, v] : tunnel.items()) j[k] = v;
    if (const auto& u = r.tunnel->udp) {
      j["udp_kernel_drops"] = u->kernel_drops;
      j["udp_buffer_grows"] = u->buffer_grows;
      j["udp_recv_buffer_bytes"] = u->recv_buffer_bytes;
    }
  }
}

void from_json(const json& j, ClientStatusReport& r) {
  const ClientStatusReport d;
  r.state = j.value("state", d.state);
  r.detail = j.value("detail", d.detail);
  r.state_since = j.value("state_since", d.state_since);
  r.started = j.value("started", d.started);
  r.now = j.value("now", d.now);
  r.server = j.value("server", d.server);
  r.user = j.value("user", d.user);
  r.proto = j.value("proto", d.proto);
  r.mode = j.value("mode", d.mode);
  r.sessions = j.value("sessions", d.sessions);
  r.last_session_end = j.value("last_session_end", d.last_session_end);
  r.tunnel.reset();
  if (j.contains("tunnel_address")) {
    r.tunnel = j.get<ClientTunnelStatus>();
    if (j.contains("udp_recv_buffer_bytes")) {
      const UdpSocketFigures none;
      r.tunnel->udp = UdpSocketFigures{j.value("udp_kernel_drops", none.kernel_drops),
                                       j.value("udp_buffer_grows", none.buffer_grows),
                                       j.value("udp_recv_buffer_bytes", none.recv_buffer_bytes)};
    }
  }
}

std::string_view to_string(ErrorCode c) {
  for (const auto& [code, name] : kCodes) {
    if (code == c) return name;
  }
  return "internal";
}

std::optional<ErrorCode> parse_error_code(std::string_view s) {
  for (const auto& [code, name] : kCodes) {
    if (name == s) return code;
  }
  return std::nullopt;
}

std::string_view name_of(const Request& r) {
  return std::visit([](const auto& v) { return std::decay_t<decltype(v)>::kName; }, r);
}

Permission needs(const Request& r) {
  return std::visit([](const auto& v) { return std::decay_t<decltype(v)>::kNeeds; }, r);
}

json encode_request(const Request& r) {
  json j = json::object();
  j["cmd"] = std::string(name_of(r));
  std::visit([&](const auto& v) { encode(v, j); }, r);
  return j;
}

Result<Request, ControlError> decode_request(const json& j) {
  if (!j.is_object()) return fail(bad("expected a JSON object"));
  auto it = j.find("cmd");
  if (it == j.end() || !it->is_string()) return fail(bad("the request needs a string \"cmd\""));
  return decode_by_name(it->get_ref<const std::string&>(), j);
}

void to_json(json& j, const ValidationResult& v) {
  j = json{{"valid", v.ok}, {"findings", v.findings}, {"sessions_ended", v.sessions_ended}};
}

void from_json(const json& j, ValidationResult& v) {
  const ValidationResult d;
  v.ok = j.value("valid", d.ok);
  v.findings = j.value("findings", d.findings);
  v.sessions_ended = j.value("sessions_ended", d.sessions_ended);
}

json encode_reply(const Response& r) {
  json j = {{"ok", true}};
  std::visit([&](const auto& v) { encode_fields(v, j); }, r);
  return j;
}

json encode_error(const ControlError& e) {
  return {{"ok", false}, {"code", std::string(to_string(e.code))}, {"error", e.message}};
}

Result<Response, ControlError> decode_reply(const Request& for_request, const json& j) {
  if (!j.is_object() || !j.contains("ok") || !j["ok"].is_boolean()) {
    return fail(ControlError{ErrorCode::kInternal, "malformed answer (no \"ok\")"});
  }
  if (!j["ok"].get<bool>()) {
    ControlError e{ErrorCode::kInternal, "refused"};
    if (auto c = j.find("code"); c != j.end() && c->is_string()) {
      e.code = parse_error_code(c->get<std::string>()).value_or(ErrorCode::kInternal);
    }
    if (auto m = j.find("error"); m != j.end() && m->is_string()) e.message = m->get<std::string>();
    return fail(std::move(e));
  }
  return std::visit(
      [&](const auto& req) -> Result<Response, ControlError> {
        using Reply = typename std::decay_t<decltype(req)>::Reply;
        try {
          if constexpr (std::is_same_v<Reply, Empty>) {
            return Response{Empty{}};
          } else {
            return Response{j.get<Reply>()};
          }
        } catch (const json::exception& ex) {
          return fail(
              ControlError{ErrorCode::kInternal,
                           "malformed answer to " + std::string(req.kName) + ": " + ex.what()});
        }
      },
      for_request);
}

}  // namespace qeli::control
