// A further admin's own second factor (RFC 6238) on its Account page: set up with a new
// random 160-bit secret shown once as an otpauth:// QR code and enabled only when the
// admin proves it with a current code (an admin who scanned nothing cannot lock itself
// out); removed with the current password. Either change ends the admin's sessions (the
// secret is part of what its cookie is bound to). An owner can remove it from the Admins
// page for an admin who lost its device. The config's owner sets its own with
// `qeli set-web-totp` on the server.
#include <spdlog/spdlog.h>

#include "crypto/base32.h"
#include "crypto/base64.h"
#include "crypto/random.h"
#include "crypto/totp.h"
#include "panel/answers.h"
#include "panel/form.h"
#include "panel/html.h"
#include "panel/i18n.h"
#include "panel/pages.h"
#include "panel/panel_app.h"
#include "qr/qr_code.h"

namespace qeli::panel {
namespace {

// The enrolment page: the secret as a QR code and as text, and the form that enables it.
std::string enrol_content(const PageContext& c, const std::string& uri, const std::string& secret,
                          const std::string& error) {
  const Lang l = c.lang;
  std::string s = error.empty() ? std::string() : "<p class=\"err\">" + escape(error) + "</p>";
  s += "<p>" +
       tr(l,
          "Scan this with an authenticator app (or type the key), then enter the code it shows. "
          "The second factor is on only after a right code.") +
       "</p>";
  if (const auto m = qr::encode(uri)) {
    const std::string svg = qr::to_svg(*m, 6);
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(svg.data());
    s += "<img class=\"qr\" id=\"totp-qr\" alt=\"" + tr(l, "QR code of the authenticator key") +
         "\" src=\"data:image/svg+xml;base64," +
         crypto::base64_encode(std::span(bytes, svg.size())) + "\">";
  }
  s += "<p>" + tr(l, "Key:") + " <code id=\"totp-secret\">" + escape(secret) +
       "</code></p><form class=\"add\" method=\"post\" action=\"" + escape(c.base) +
       "/account/totp/enable\"><input type=\"hidden\" name=\"csrf\" value=\"" + escape(c.csrf) +
       "\"><input type=\"hidden\" name=\"secret\" value=\"" + escape(secret) + "\"><label>" +
       tr(l, "Code from your authenticator app") +
       "<input name=\"code\" inputmode=\"numeric\" pattern=\"[0-9]{6}\" maxlength=\"6\" "
       "autocomplete=\"one-time-code\" required></label><button type=\"submit\">" +
       tr(l, "Turn on") + "</button></form>";
  return s;
}

}  // namespace

std::string PanelApp::account_totp_content(const Ctx& c, const PageContext& pc) {
  const auto id = identity(c.admin);
  const Lang l = c.lang;
  if (!id || id->config_owner) {
    return "<p class=\"muted\">" +
           tr(l,
              "Your second factor is the server config's <code>[web] totp_secret</code>: "
              "<code>qeli "
              "set-web-totp</code> on the server.") +
           "</p>";
  }
  if (!id->totp_secret.empty()) {
    return "<h2>" + tr(l, "Second factor: on") +
           "</h2><form class=\"add\" method=\"post\" action=\"" + escape(pc.base) +
           "/account/totp/disable\"><input type=\"hidden\" name=\"csrf\" value=\"" +
           escape(pc.csrf) + "\"><label>" + tr(l, "Current password") +
           "<input type=\"password\" name=\"current\" required "
           "autocomplete=\"current-password\"></label><button type=\"submit\" class=\"danger\">" +
           tr(l, "Turn off") + "</button></form>";
  }
  return "<h2>" + tr(l, "Second factor: off") + "</h2><p>" +
         tr(l, "A one-time code from an authenticator app at every login (RFC 6238).") + "</p>" +
         post_button(pc.base, "/account/totp/start", pc.csrf, tr(l, "Set up"));
}

std::optional<HttpResponse> PanelApp::account_totp_action(Ctx& c, const FormFields& form) {
  if (!c.path.starts_with("/account/totp/")) return std::nullopt;
  const auto id = identity(c.admin);
  if (!id || id->config_owner || admins_ == nullptr) {
    return refused_page(c, 409,
                        tr(c.lang,
                           "Your second factor is the server config's <code>[web] "
                           "totp_secret</code>: <code>qeli "
                           "set-web-totp</code> on the server."));
  }
  const PageContext pc = context(c, "");
  const std::string issuer = s_.public_host.empty() ? "qeli" : "qeli " + s_.public_host;
  auto enrol_page = [&](const std::string& secret, const std::string& error, int status) {
    const auto key = crypto::base32_decode(secret);
    HttpResponse r;
    r.status = status;
    r.body =
        render_page(frame(c, tr(c.lang, "Second factor"), NavItem::kAccount, pc.csrf),
                    enrol_content(pc, crypto::otpauth_uri(issuer, c.admin, *key), secret, error));
    return r;
  };
  if (c.path == "/account/totp/start") {
    Bytes key(crypto::kTotpSecretBytes);
    crypto::system_rng().fill(key);
    return enrol_page(crypto::base32_encode(key), "", 200);
  }
  if (c.path == "/account/totp/enable") {
    const std::string secret(form.get("secret"));
    const auto key = crypto::base32_decode(secret);
    if (!key || key->size() != crypto::kTotpSecretBytes) {
      return refused_page(c, 400, unexpected_value(c.lang, "secret"));
    }
    const auto step = crypto::totp_match(*key, form.get("code"), clock_.unix_now());
    if (!step)
      return enrol_page(secret, tr(c.lang, "That code is not the current one; try again."), 422);
    if (!admins_->set_totp(c.admin, secret) || !admins_->use_totp_step(c.admin, *step)) {
      return redirect(s_.base_path + "/account?done=failed");
    }
    spdlog::info("panel: {} turned its second factor on from {}", c.who, c.ip);
    return redirect(s_.base_path + "/login");
  }
  if (c.path == "/account/totp/disable") {
    if (!current_password_ok(c, id->password_hash, std::string(form.get("current")))) {
      spdlog::warn("panel: {} from {}: wrong current password; second factor kept", c.who, c.ip);
      return redirect(s_.base_path + "/account?done=password-wrong");
    }
    if (!admins_->set_totp(c.admin, "")) return redirect(s_.base_path + "/account?done=failed");
    spdlog::info("panel: {} turned its second factor off from {}", c.who, c.ip);
    return redirect(s_.base_path + "/login");
  }
  return refused_page(c, 404, tr(c.lang, "No such page."));
}

}  // namespace qeli::panel
