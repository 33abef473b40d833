// Every page of the panel in Russian: <html lang="ru">, no string the Russian table lacks,
// no English phrase of the table left in the page's text, values still escaped. And the
// choice itself: Accept-Language, the qeli_lang cookie over it, the header's switch (a
// POST with the CSRF token) and the login page's ?lang= link; the JSON API stays English.
#include <gtest/gtest.h>

#include <regex>

#include "../config/temp_dir.h"
#include "panel/admin_accounts.h"
#include "panel/answers.h"
#include "panel/api_tokens.h"
#include "panel/audit_log.h"
#include "panel/html.h"
#include "panel/i18n.h"
#include "panel_fixture.h"

namespace qeli::panel::panel_test {
namespace {

// The text a reader sees: tags dropped (attributes too: hints are checked through the
// table's misses), so a class name or a form field's name is not English text.
std::string visible_text(const std::string& html) {
  std::string out;
  bool in_tag = false;
  for (const char c : html) {
    if (c == '<') in_tag = true;
    if (!in_tag) out.push_back(c);
    if (c == '>') {
      in_tag = false;
      out.push_back(' ');
    }
  }
  return out;
}

// The English fragments of a table entry that must not be in a Russian page: its text
// without markup, cut at each {placeholder}; single letters and symbols are no evidence.
std::vector<std::string> english_fragments(std::string_view en) {
  std::vector<std::string> out;
  const std::string text = std::regex_replace(std::string(en), std::regex("<[^>]*>"), " ");
  for (const auto& part : {std::regex("\\{[a-z]+\\}")}) {
    std::sregex_token_iterator it(text.begin(), text.end(), part, -1), end;
    for (; it != end; ++it) {
      std::string f = it->str();
      while (!f.empty() && (f.front() == ' ' || f.front() == '(')) f.erase(0, 1);
      while (!f.empty() && (f.back() == ' ' || f.back() == ')' || f.back() == ':')) f.pop_back();
      if (std::count_if(f.begin(), f.end(), [](char c) { return std::isalpha(c) != 0; }) >= 2) {
        out.push_back(f);
      }
    }
  }
  return out;
}

// `fragment` as whole words in `text` (so "Up" is not found inside "Upload").
bool has_words(const std::string& text, const std::string& fragment) {
  for (std::size_t at = text.find(fragment); at != std::string::npos;
       at = text.find(fragment, at + 1)) {
    const bool left = at == 0 || std::isalnum(static_cast<unsigned char>(text[at - 1])) == 0;
    const std::size_t end = at + fragment.size();
    const bool right =
        end >= text.size() || std::isalnum(static_cast<unsigned char>(text[end])) == 0;
    if (left && right) return true;
  }
  return false;
}

const std::vector<std::string> kScopeNames = {"users:write"};

class PanelRussianTest : public LoggedInPanelTest {
 protected:
  void SetUp() override {
    stores_.open(dir_.path() + "/panel.db");
    PanelSettings s = settings();
    s.totp_secret.clear();
    start(s);
    stores_.attach(*app_);
    missing_translations();  // earlier tests' misses are theirs
  }

  HttpResponse get_ru(const std::string& path) {
    return app_->handle(req("GET", path, {}, {{"cookie", cookie_}, {"accept-language", "ru-RU"}}));
  }
  HttpResponse post_ru(const std::string& path, const std::string& body) {
    return app_->handle(req("POST", path, "csrf=" + csrf_ + "&" + body,
                            {{"cookie", cookie_}, {"accept-language", "ru-RU,ru;q=0.9"}}));
  }

  /// A page in Russian: lang="ru", nothing asked for that the table lacks, and no
  /// English phrase of the table in its text besides `values` (English from elsewhere:
  /// the server's refusals, which stay as the server wrote them).
  void expect_russian(const HttpResponse& r, const std::string& what,
                      const std::vector<std::string>& values = {}) {
    SCOPED_TRACE(what);
    EXPECT_TRUE(contains(r.body, "<html lang=\"ru\">")) << r.body.substr(0, 200);
    for (const auto& miss : missing_translations()) ADD_FAILURE() << "no Russian for: " << miss;
    std::string text = visible_text(r.body);
    for (const auto& v : values) {
      const std::string shown = escape(v);
      ASSERT_TRUE(contains(text, shown)) << "the page does not show " << v;
      for (auto at = text.find(shown); at != std::string::npos; at = text.find(shown)) {
        text.erase(at, shown.size());
      }
    }
    for (const auto& t : russian_table()) {
      for (const auto& f : english_fragments(t.en)) {
        EXPECT_FALSE(has_words(text, f)) << "untranslated: \"" << f << "\" (" << t.en << ")";
      }
    }
    EXPECT_FALSE(contains(r.body, kEvil)) << "a value's markup got through";
  }

  test::TempDir dir_;
  PanelStores stores_;
};

TEST_F(PanelRussianTest, EveryPageRendersInRussian) {
  server_.webhook_log.enabled = true;
  server_.webhook_log.pending = 3;
  server_.webhook_log.deliveries = {
      {1'800'000'000'000, "msg_1", "session.connected", "failed", 0, kEvil}};
  control::ConfigFinding error;
  error.severity = "error";
  error.line = 3;
  error.message = kEvil;
  control::ConfigFinding warning = error;
  warning.severity = "warning";
  server_.validation.ok = false;
  server_.validation.findings = {error, warning};
  ASSERT_EQ(post("/tokens/create", "name=ci&scope=read&days=5").status, 200);
  ASSERT_EQ(post("/admins/create", "name=watcher&role=read-only").status, 200);
  missing_translations();  // those pages were English
  for (const std::string path :
       {"/", "/sessions", "/sessions/view?profile=main&id=42", "/users", "/users/view?name=alice",
        "/users/edit?user=alice", "/blocked", "/events", "/config", "/config/version?id=v1",
        "/tokens", "/audit", "/admins", "/account", "/webhooks", "/logs",
        "/users/view?name=%3Cscript%3Ealert(1)%3C%2Fscript%3E"}) {
    auto r = get_ru(path);
    ASSERT_EQ(r.status, 200) << path;
    if (path == "/logs") {
      // The log lines are data, English as written (the process's own ring holds what
      // earlier tests logged): only the page around them is checked.
      const auto table = r.body.find("<table class=\"logs\">");
      ASSERT_NE(table, std::string::npos);
      const auto rows = r.body.find("</tr>", table) + 5;
      r.body.erase(rows, r.body.find("</table>", rows) - rows);
    }
    // A token scope's name is a word of the API (and of the checkbox that grants it).
    expect_russian(r, path, path == "/tokens" ? kScopeNames : std::vector<std::string>{});
  }
  // Every message a redirect may show, with counts that take each plural form.
  for (const std::string done :
       {"kicked&n=1",       "kicked&n=3",       "kicked&n=11",     "disabled&n=21",
        "enabled",          "unblocked",        "unblocked-all",   "failed",
        "user-added",       "user-removed&n=2", "user-edited&n=5", "revoked&n=1",
        "token-revoked",    "admin-removed",    "admin-role",      "admin-logged-out",
        "admin-totp-reset", "password-wrong",   "password-weak",   "saved",
        "restored",         "unchanged"}) {
    expect_russian(get_ru("/sessions?done=" + done), done);
  }
  EXPECT_TRUE(contains(get_ru("/sessions?done=kicked&n=3").body, "Завершено 3 сеанса."));
  // Pages answered to a POST: a validation with findings, a refused edit, a new device,
  // a new token, a new admin, a refused token.
  expect_russian(post_ru("/config/validate", "text=x&base=a"), "validate");
  auto refused = post_ru("/users/edit", std::string("user=alice&static_ip=") + kOutsidePool);
  EXPECT_EQ(refused.status, 422);
  expect_russian(refused, "refused edit", {kEditRefusal});
  expect_russian(post_ru("/devices/add", "user=alice&name=phone&host=h&profile=main"), "device");
  expect_russian(post_ru("/tokens/create", "name=ci2&scope=read&days=5"), "token");
  expect_russian(post_ru("/tokens/create", "name=&scope=read&days=5"), "refused token",
                 kScopeNames);
  expect_russian(post_ru("/admins/create", "name=second&role=admin"), "admin");
  // A further admin's Account page and its second factor's setup.
  ASSERT_TRUE(stores_.admins->set_password("watcher", hash_));
  const auto in = app_->handle(req("POST", "/login", "username=watcher&password=secret",
                                   {{"content-type", "application/x-www-form-urlencoded"}}));
  ASSERT_EQ(in.status, 303);
  const std::string set = header_of(in, "Set-Cookie");
  const std::string watcher = set.substr(0, set.find(';'));
  const auto ru = [&](const std::string& method, const std::string& path, std::string body) {
    if (method == "POST") body = "csrf=" + csrf_of(*app_, watcher) + "&" + body;
    return app_->handle(req(method, path, body, {{"cookie", watcher}, {"accept-language", "ru"}}));
  };
  expect_russian(ru("GET", "/account", ""), "account");
  expect_russian(ru("POST", "/account/totp/start", ""), "totp start");
  const auto wrong =
      ru("POST", "/account/totp/enable", "secret=" + std::string(32, 'A') + "&code=x");
  EXPECT_EQ(wrong.status, 422);
  expect_russian(wrong, "totp wrong code");
  // The login page and the server's 502.
  expect_russian(app_->handle(req("GET", "/login", {}, {{"accept-language", "ru"}})), "login");
  expect_russian(app_->handle(req("POST", "/login", "username=admin&password=wrong",
                                  {{"accept-language", "ru"}})),
                 "failed login");
  server_.fail_with = "connect: ECONNREFUSED";
  const auto down = get_ru("/");
  EXPECT_EQ(down.status, 502);
  expect_russian(down, "502");
}

TEST_F(PanelRussianTest, AValueInsideARussianSentenceStaysInert) {
  const auto r = post_ru("/devices/add", std::string("user=") + "%3Cscript%3E" + "&name=phone" +
                                             "&host=h&profile=main");
  ASSERT_EQ(r.status, 200);
  EXPECT_TRUE(contains(r.body, "пользователя &lt;script&gt; добавлено")) << r.body;
  EXPECT_TRUE(contains(r.body, "Назад к &lt;script&gt;"));
  EXPECT_FALSE(contains(r.body, "<script>"));
  const auto user = get_ru("/users/view?name=%3Cscript%3Ealert(1)%3C%2Fscript%3E");
  EXPECT_TRUE(contains(user.body, "Удалить &lt;script&gt;alert(1)&lt;/script&gt;"));
}

TEST_F(PanelRussianTest, TheCookieOverridesAcceptLanguageAndTheSwitchSetsIt) {
  const auto en = get("/");
  EXPECT_TRUE(contains(en.body, "<html lang=\"en\">"));
  EXPECT_TRUE(contains(en.body, ">Dashboard</a>"));
  EXPECT_TRUE(contains(get_ru("/").body, ">Обзор</a>"));
  const auto cookie_en = app_->handle(
      req("GET", "/", {}, {{"cookie", cookie_ + "; qeli_lang=en"}, {"accept-language", "ru"}}));
  EXPECT_TRUE(contains(cookie_en.body, "<html lang=\"en\">"));
  // The switch: a POST with the CSRF token, back to the page it was on.
  const auto sw = post("/lang", "lang=ru&to=%2Fusers%3Fdone%3Denabled");
  EXPECT_EQ(sw.status, 303);
  EXPECT_EQ(header_of(sw, "Location"), "/users?done=enabled");
  EXPECT_EQ(header_of(sw, "Set-Cookie"),
            "qeli_lang=ru; Path=/; Max-Age=31536000; HttpOnly; SameSite=Strict");
  EXPECT_EQ(post("/lang", "lang=ru", false).status, 403);  // no CSRF token
  EXPECT_EQ(post("/lang", "lang=de&to=%2F").status, 400);
  // Never to another site.
  for (const std::string to :
       {"%2F%2Fevil.example", "%2F%5Cevil.example", "https://evil", "%2Fa%0D%0ASet-Cookie:x", ""}) {
    EXPECT_EQ(header_of(post("/lang", "lang=en&to=" + to), "Location"), "/") << to;
  }
  // The page's switch names the page and the other language.
  EXPECT_TRUE(contains(get("/users?done=enabled").body,
                       "name=\"to\" value=\"/users?done=enabled\"><button type=\"submit\">"
                       "Русский</button>"));
  EXPECT_TRUE(contains(get_ru("/events").body, "name=\"lang\" value=\"en\""));
}

TEST_F(PanelRussianTest, TheLoginPageLinkSetsTheCookieUnderTheBasePath) {
  PanelSettings s = settings();
  s.base_path = "/panel";
  s.secure_cookie = true;
  app_ = make(s);
  const auto r = app_->handle(req("GET", "/panel/login?lang=ru"));
  EXPECT_EQ(r.status, 200);
  EXPECT_TRUE(contains(r.body, "<html lang=\"ru\">"));
  EXPECT_TRUE(contains(r.body, "href=\"/panel/login?lang=en\" lang=\"en\">English</a>"));
  EXPECT_EQ(header_of(r, "Set-Cookie"),
            "qeli_lang=ru; Path=/panel; Max-Age=31536000; HttpOnly; SameSite=Strict; Secure");
  const auto plain_login = app_->handle(req("GET", "/panel/login?lang=xx"));
  EXPECT_TRUE(contains(plain_login.body, "<html lang=\"en\">"));
  EXPECT_EQ(count_of(plain_login, "Set-Cookie"), 0U);
}

TEST_F(PanelRussianTest, TheJsonApiStaysEnglish) {
  const auto r = app_->handle(
      req("GET", "/api/v1/nothing", {}, {{"cookie", cookie_}, {"accept-language", "ru"}}));
  EXPECT_EQ(r.status, 404);
  EXPECT_TRUE(contains(r.body, "Not Found"));
  const auto anon = app_->handle(req("GET", "/api/v1/status", {}, {{"accept-language", "ru"}}));
  EXPECT_TRUE(contains(anon.body, "log in first"));
  // A form's refusal through the API: the problem's detail is the English one.
  const auto edit =
      app_->handle(req("POST", "/api/v1/users/edit", R"({"user":"alice","x":1})",
                       {{"cookie", cookie_}, {"x-csrf-token", csrf_}, {"accept-language", "ru"}}));
  EXPECT_EQ(edit.status, 400);
  EXPECT_EQ(json::parse(edit.body)["detail"], "unknown member \"x\"");
  // Before the request is admitted (another Host: DNS rebinding) there is no page to
  // speak of: plain English.
  const auto foreign = app_->handle(req("GET", "/", {}, {{"host", "evil.example"}}));
  EXPECT_EQ(foreign.status, 421);
  EXPECT_EQ(foreign.content_type, "text/plain; charset=utf-8");
}

// Every refusal a page can show, in Russian: each form given a bad value (the user editor,
// API tokens, admins, the account's password and second factor), each role refusal, a
// page or user that does not exist, a POST without a session or CSRF token or from
// another site. The Russian sentence is there and its English is not; values (a field's
// name, a role, the server's own words) stay as they are.
TEST_F(PanelRussianTest, EveryRefusalOnAPageIsRussian) {
  const auto refused = [&](const HttpResponse& r, int status, const std::string& what,
                           const std::string& russian, const std::string& english,
                           const std::vector<std::string>& values = {}) {
    SCOPED_TRACE(what);
    EXPECT_EQ(r.status, status);
    EXPECT_EQ(r.content_type, "text/html; charset=utf-8");
    EXPECT_TRUE(contains(r.body, russian)) << r.body;
    EXPECT_FALSE(contains(r.body, english));
    expect_russian(r, what, values);
  };
  // The user editor's numbers (the field named by its Russian label).
  refused(post_ru("/users/edit", "user=alice&max_sessions=many"), 422, "max_sessions",
          "Макс. сеансов: нужно целое число от 0 до 4294967295", "not a whole number");
  refused(post_ru("/users/edit", "user=alice&expire_at=-1"), 422, "expire_at",
          "Истекает (секунды Unix): нужно целое число от 0 до 18446744073709551615",
          "not a whole number");
  refused(post_ru("/users/edit", "user=alice&bandwidth_limit_mbps=fast"), 422, "bandwidth",
          "Ограничение скорости (Мбит/с): нужно число", "not a number");
  refused(post_ru("/users/edit", "user=alice&data_limit_gb=1e"), 422, "data_limit",
          "Ограничение трафика (ГБ): нужно число", "not a number");
  // The server's refusal: its words inside a Russian sentence.
  refused(post_ru("/users/edit", std::string("user=alice&static_ip=") + kOutsidePool), 422,
          "server refusal", "Не сохранено: users.conf:3:", "Not saved", {kEditRefusal});
  // API tokens.
  refused(post_ru("/tokens/create", "name=&scope=read&days=5"), 422, "token name",
          "имя токена должно содержать от 1 до 64 печатных символов", "a token needs", kScopeNames);
  refused(post_ru("/tokens/create", "name=ci&days=5"), 422, "token scopes",
          "Не создано: выберите хотя бы одно право.", "at least one scope", kScopeNames);
  for (const std::string days : {"0", "366", "x"}) {
    refused(post_ru("/tokens/create", "name=ci&scope=read&days=" + days), 422, "days " + days,
            "Не создано: срок действия токена — от 1 до 365 дней.", "expires within", kScopeNames);
  }
  refused(post_ru("/tokens/create", "name=ci&scope=root&days=5"), 400, "unknown scope",
          "В поле формы scope значение, которого не предлагает ни одна страница этой панели.",
          "Bad Request", {"scope"});
  // Admins.
  ASSERT_TRUE(
      stores_.admins->create("watcher", AdminRole::kReadOnly, hash_, now_unix_, "admin").ok());
  refused(post_ru("/admins/create", "name=two%20words&role=admin"), 422, "admin name",
          "Не создано: имя администратора — от 1 до 32 символов: буквы, цифры или . _ @ -",
          "an admin's name");
  for (const std::string name : {"watcher", "admin"}) {
    refused(post_ru("/admins/create", "name=" + name + "&role=admin"), 422, "admin " + name,
            "Не создано: администратор " + name + " уже есть.", "exists", {name});
  }
  refused(post_ru("/admins/role", "name=watcher&role=root"), 400, "unknown role",
          "В поле формы role значение", "Bad Request", {"role"});
  refused(post_ru("/account/password", "current=secret&new=x&again=x"), 409, "owner's password",
          "меняйте его на сервере командой", "Conflict");
  refused(post_ru("/account/totp/start", ""), 409, "owner's second factor",
          "Ваш второй фактор — это", "Conflict");
  // A further admin: its own forms, and what its role may not do.
  const auto in = app_->handle(req("POST", "/login", "username=watcher&password=secret",
                                   {{"content-type", "application/x-www-form-urlencoded"}}));
  ASSERT_EQ(in.status, 303);
  const std::string set = header_of(in, "Set-Cookie");
  const std::string watcher = set.substr(0, set.find(';'));
  const auto as_watcher = [&](const std::string& method, const std::string& path,
                              std::string body = {}) {
    if (method == "POST") body = "csrf=" + csrf_of(*app_, watcher) + "&" + body;
    return app_->handle(req(method, path, body, {{"cookie", watcher}, {"accept-language", "ru"}}));
  };
  for (const std::string path : {"/config", "/tokens", "/admins", "/logs"}) {
    refused(as_watcher("GET", path), 403, "role GET " + path,
            "Ваша роль (read-only) не позволяет это сделать (это может роль owner).",
            "cannot do this", {"read-only", "owner"});
  }
  refused(as_watcher("POST", "/sessions/kick", "user=alice"), 403, "role POST",
          "Ваша роль (read-only) не позволяет это сделать (это может роль admin).",
          "cannot do this", {"read-only", "admin"});
  refused(as_watcher("POST", "/account/totp/enable", "secret=x&code=1"), 400, "not our key",
          "В поле формы secret значение", "Bad Request", {"secret"});
  // Its password form's refusals arrive as a redirect's message.
  for (const auto& [body, russian] :
       {std::pair<std::string, std::string>{"current=wrong&new=long-enough-pw&again=long-enough-pw",
                                            "Не изменено: текущий пароль неверен."},
        {"current=secret&new=short&again=short", "Не изменено: новый пароль должен быть"}}) {
    const auto r = as_watcher("POST", "/account/password", body);
    ASSERT_EQ(r.status, 303) << body;
    const std::string to = header_of(r, "Location");
    refused(as_watcher("GET", to), 200, to, russian, "Not changed");
  }
  // Nothing of that name.
  refused(get_ru("/users/view?name=nobody"), 404, "no user", "Такого пользователя нет.",
          "no such user");
  refused(get_ru("/users/edit?user=nobody"), 404, "no user to edit", "Такого пользователя нет.",
          "no such user");
  refused(get_ru("/config/version?id=v9"), 404, "no version", "Такой версии конфигурации нет.",
          "no such version");
  refused(post_ru("/config/restore", "id=v9&base=a"), 404, "no version to restore",
          "Такой версии конфигурации нет.", "no such version");
  refused(get_ru("/no-such-page"), 404, "no page", "Такой страницы нет.", "Not Found");
  refused(post_ru("/sessions/kick", "user=alice&id=x"), 400, "kick id", "В поле формы id значение",
          "Bad Request", {"id"});
  // Without a session, without the CSRF token, from another site.
  refused(app_->handle(req("POST", "/users/disable", "user=alice", {{"accept-language", "ru"}})),
          403, "no session", "Не выполнено: вы не вошли в панель", "not logged in");
  refused(app_->handle(req("POST", "/users/disable", "user=alice",
                           {{"cookie", cookie_}, {"accept-language", "ru"}})),
          403, "no CSRF token", "защитного токена формы нет или он устарел", "CSRF");
  refused(
      app_->handle(req(
          "POST", "/users/disable", "csrf=" + csrf_ + "&user=alice",
          {{"cookie", cookie_}, {"accept-language", "ru"}, {"origin", "https://evil.example"}})),
      403, "cross-origin", "запрос пришёл со страницы другого сайта", "cross-origin");
  EXPECT_TRUE(server_.seen<control::DisableUser>().empty());
  // The config editor: a save the server refuses (its words, a Russian frame).
  server_.save_error = "the file changed since it was read";
  refused(post_ru("/config/save", "text=x&base=a"), 409, "save refused",
          "Не сохранено: the file changed since it was read", "Not saved",
          {"the file changed since it was read"});
}

// Without a state_db: the pages that need one say why, in Russian.
TEST_F(PanelRussianTest, AFormWhoseStoreIsOffSaysSoInRussian) {
  app_->set_tokens(nullptr, std::string(kNoStateDb));
  app_->set_admins(nullptr, "[web] state_db: unable to open database file");
  const auto tokens = post_ru("/tokens/create", "name=ci&scope=read&days=5");
  EXPECT_EQ(tokens.status, 503);
  EXPECT_TRUE(contains(tokens.body, "API-токены отключены: не задан [web] state_db"));
  expect_russian(tokens, "tokens off");
  expect_russian(get_ru("/audit"), "audit off");
  // SQLite's words stay as SQLite wrote them.
  const auto admins = post_ru("/admins/create", "name=x&role=admin");
  EXPECT_EQ(admins.status, 503);
  EXPECT_TRUE(contains(admins.body,
                       "Дополнительные администраторы отключены: [web] state_db: "
                       "unable to open database file"));
  expect_russian(admins, "admins off", {"unable to open database file"});
  app_->set_traffic(nullptr, std::string(kNoStateDb));
  const auto dashboard = get_ru("/");
  EXPECT_TRUE(contains(dashboard.body, "Истории нет: не задан [web] state_db"));
  expect_russian(dashboard, "traffic off");
}

}  // namespace
}  // namespace qeli::panel::panel_test
