// The panel behind cpp-httplib (panel/panel_app.h) on any request: method, path, query,
// headers and body from the input, half of the inputs with a valid session cookie and
// CSRF token, against a fake server whose every answer carries markup. Never a crash;
// every answer has a status in 200..599 and the security headers; no page ever contains
// the server's markup unescaped in a page; nothing changes state without the CSRF token,
// nor with the session of a read-only admin (a quarter of the sessions are one's).
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "crypto/argon2id.h"
#include "panel/admin_accounts.h"
#include "panel/admin_sessions.h"
#include "panel/panel_app.h"

using namespace qeli;

namespace {

constexpr char kEvil[] = "<script>x</script>";

class FakeServer final : public control::ControlService {
 public:
  int changes = 0;
  Result<control::Response, control::ControlError> handle(const control::Request& req,
                                                          const control::Caller&) override {
    using namespace control;
    if (std::holds_alternative<ListSessions>(req)) {
      SessionInfo s;
      s.username = s.device = s.peer = s.profile = kEvil;
      return Response{SessionList{{s}}};
    }
    if (std::holds_alternative<GetStats>(req)) {
      StatsSnapshot st;
      st.version = kEvil;
      ProfileStats p;
      p.profile = p.mode = kEvil;
      st.profiles.push_back(p);
      return Response{st};
    }
    if (std::holds_alternative<GetEvents>(req)) {
      Event e;
      e.type = e.username = e.reason = kEvil;
      return Response{EventList{"b", 1, {e}}};
    }
    if (std::holds_alternative<ListUsers>(req)) {
      UserInfo u;
      u.name = u.group = kEvil;
      u.metadata = {{kEvil, kEvil}};
      return Response{UserList{{u}, {}}};
    }
    if (std::holds_alternative<GetUsage>(req)) return Response{UsageList{}};
    if (std::holds_alternative<GetConfig>(req) || std::holds_alternative<GetConfigVersion>(req)) {
      return Response{ConfigText{kEvil, kEvil, "00"}};
    }
    if (std::holds_alternative<ListConfigHistory>(req)) {
      return Response{ConfigHistory{{{kEvil, 1'700'000'000, kEvil, kEvil, 1}}}};
    }
    if (std::holds_alternative<GetLogs>(req)) {
      return Response{LogLines{1, {{1, 1'700'000'000'000, kEvil, kEvil}}}};
    }
    if (std::holds_alternative<GetWebhookLog>(req)) {
      WebhookDelivery d;
      d.id = d.type = d.result = d.detail = kEvil;
      return Response{WebhookLog{true, 1, {d}}};
    }
    if (std::holds_alternative<ListBlocked>(req)) {
      BlockedAddress b;
      b.ip = b.user = kEvil;
      return Response{BlockedList{{b}, 1}};
    }
    // What counts as a change is the control API's own table (control::needs): anything
    // more than reading. A read the cases above do not answer fails like the server would.
    if (needs(req) == Permission::kRead) return fail(ControlError{ErrorCode::kInternal, kEvil});
    ++changes;
    if (std::holds_alternative<Kick>(req)) return Response{KickResult{1}};
    if (std::holds_alternative<DisableUser>(req) || std::holds_alternative<EnableUser>(req)) {
      return Response{UserSwitchResult{}};
    }
    if (std::holds_alternative<Unblock>(req) || std::holds_alternative<UnblockAll>(req)) {
      return Response{UnblockResult{}};
    }
    // edit-user: done, or refused with markup in the words (the form shows them again).
    if (const auto* e = std::get_if<EditUser>(&req)) {
      if (e->static_ip && !e->static_ip->empty()) {
        return fail(ControlError{ErrorCode::kInvalid, kEvil});
      }
      return Response{UserChanged{kEvil, kEvil, true, 1}};
    }
    return fail(ControlError{ErrorCode::kInternal, kEvil});
  }
};

// Splits at the next 0x00 byte.
std::string take(std::string_view& in) {
  const auto z = in.find('\0');
  std::string out(in.substr(0, z));
  in = z == std::string_view::npos ? std::string_view{} : in.substr(z + 1);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string hash = *crypto::argon2id_hash("pw");
  static const panel::SessionKey key{};
  static FakeServer server;
  static panel::PanelApp app(
      [] {
        panel::PanelSettings s;
        s.username = "admin";
        s.password_hash = hash;
        s.trusted_proxies = {*config::Ipv4Cidr::parse("127.0.0.1", true)};
        return s;
      }(),
      server, key,
      panel::PanelClock{[] { return std::int64_t{1'800'000'000}; }, [] { return Instant{}; },
                        [](Duration) {}});
  static panel::AdminSessions issuer(key, 86400);
  // A read-only admin in a state_db of its own (an owner's input may change or remove it:
  // it is put back before every input).
  static const std::unique_ptr<panel::AdminAccounts> admins = [] {
    static char dir[] = "/tmp/qeli-fuzz-panel-XXXXXX";
    if (::mkdtemp(dir) == nullptr) std::abort();
    std::atexit([] { std::filesystem::remove_all(dir); });
    auto a = panel::AdminAccounts::open(std::string(dir) + "/panel.db");
    if (!a.ok()) std::abort();
    app.set_admins(a->get());
    return std::move(*a);
  }();
  static const std::string viewer_hash = *crypto::argon2id_hash("pw2");
  if (size == 0) return 0;
  const auto viewer = admins->find("viewer");
  if (!viewer || viewer->role != panel::AdminRole::kReadOnly ||
      viewer->password_hash != viewer_hash) {
    admins->remove("viewer");
    if (!admins->create("viewer", panel::AdminRole::kReadOnly, viewer_hash, 0, "fuzz").ok()) {
      std::abort();
    }
  }
  std::string_view in(reinterpret_cast<const char*>(data) + 1, size - 1);
  const bool with_session = (data[0] & 1) != 0;
  const bool with_token = (data[0] & 2) != 0;
  const bool as_viewer = (data[0] & 4) != 0;
  panel::HttpRequest r;
  r.method = take(in);
  r.path = take(in);
  r.query = take(in);
  for (int i = 0; i < 4 && !in.empty(); ++i) {
    std::string name = take(in);
    r.headers.emplace_back(std::move(name), take(in));
  }
  r.body = std::string(in);
  r.remote_ip = "127.0.0.1";
  panel::AdminSession s;
  if (with_session) {
    const std::string cookie =
        as_viewer ? issuer.issue("viewer", panel::session_credential(*admins->find("viewer")),
                                 1'800'000'000, &s)
                  : issuer.issue("admin", hash, 1'800'000'000, &s);
    r.headers.emplace_back("cookie", "qeli_session=" + cookie);
    if (with_token) r.headers.emplace_back("x-csrf-token", issuer.csrf_token(s.sid));
  }
  const int before = server.changes;
  const panel::HttpResponse out = app.handle(r);
  if (out.status < 200 || out.status > 599) std::abort();
  bool csp = false, frame = false;
  for (const auto& [k, v] : out.headers) {
    csp = csp || (k == "Content-Security-Policy" && v.starts_with("default-src 'none'"));
    frame = frame || (k == "X-Frame-Options" && v == "DENY");
  }
  if (!csp || !frame) std::abort();
  // JSON answers carry the strings as JSON strings (application/json, nosniff); pages
  // must never carry them as markup.
  if (out.content_type.starts_with("text/html") && out.body.find(kEvil) != std::string::npos) {
    std::abort();
  }
  // A state change needs the token: in a header (given above) or a form field `csrf`
  // (only if the input spelled out a valid one, which it cannot guess).
  if (server.changes != before && !(with_session && with_token)) std::abort();
  // A read-only admin reads, whatever it sends.
  if (server.changes != before && as_viewer) std::abort();
  return 0;
}
