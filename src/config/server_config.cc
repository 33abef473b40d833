#include "config/server_config.h"
#include "config/logging_section.h"
#include "config/metrics_section.h"
#include "config/webhooks_section.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "config/config_path.h"
#include "config/profile_loader.h"
#include "config/section_reader.h"
#include "config/unbuilt.h"
#include "config/values.h"
#include "crypto/argon2id.h"
#include "crypto/base32.h"
#include "crypto/totp.h"

namespace qeli::config {

bool dns_upstream_usable(const Ipv6Addr& a) {
  return a.is_routable_unicast() || a == *Ipv6Addr::parse("::1");
}

namespace {

BruteForceConfig read_brute_force(SectionReader& r, std::string_view prefix) {
  const std::string p(prefix);
  BruteForceConfig b;
  b.enabled = r.get_bool(p + "enabled", b.enabled);
  b.max_attempts = r.get_u<std::uint32_t>(p + "max_attempts", b.max_attempts, 1, 10000);
  b.window = r.get_secs(p + "window_secs", b.window, seconds{1}, seconds{86400});
  b.lockout = r.get_secs(p + "lockout_secs", b.lockout, seconds{1}, seconds{2592000});
  b.address_max_attempts =
      r.get_u<std::uint32_t>(p + "address_max_attempts", b.address_max_attempts, 1, 100000);
  enum class Key { kUserAndAddress, kAddress };
  b.per_address_only = r.get_enum(p + "lockout_key", Key::kUserAndAddress,
                                  {{"user-and-address", Key::kUserAndAddress},
                                   {"address", Key::kAddress}}) == Key::kAddress;
  return b;
}

AuthConfig read_auth(SectionReader& r) {
  AuthConfig a;
  a.users_file_explicit = r.has("users_file");
  a.users_file = r.get_string("users_file", a.users_file);
  if (a.users_file.empty()) r.error("users_file", "must not be empty");
  a.identity_dir = r.get_string("identity_dir", a.identity_dir);
  if (a.identity_dir.empty()) r.error("identity_dir", "must not be empty");
  a.require_client_key_proof = r.get_bool("require_client_key_proof", false);
  a.bind_static_to_session = r.get_bool("bind_static_to_session", true);
  a.brute_force = read_brute_force(r, "brute_force.");
  return a;
}

WebConfig read_web(SectionReader& r) {
  WebConfig w;
  w.enabled = r.get_bool("enabled", false);
  w.bind = r.get_string("bind", w.bind);
  if (!Ipv4Addr::parse(w.bind) && !is_ipv6_literal(w.bind)) {
    r.error("bind", "`" + w.bind + "` is not a numeric IPv4 or IPv6 address");
  }
  w.port = r.get_u<std::uint16_t>("port", w.port, 1, 65535);
  w.username = r.get_string("username", w.username);
  w.password_hash = r.get_string("password_hash", "");
  w.totp_secret = r.get_string("totp_secret", "");
  if (!w.totp_secret.empty()) {
    const auto key = crypto::base32_decode(w.totp_secret);
    if (!key || key->size() < crypto::kTotpMinSecretBytes) {
      r.error("totp_secret",
              "not a Base32 TOTP secret of at least 128 bits (26 characters of A-Z and 2-7); "
              "make one with `qeli set-web-totp`");
    }
  }
  w.insecure_no_auth = r.get_bool("insecure_no_auth", false);
  if (w.insecure_no_auth) {
    r.error("insecure_no_auth",
            "the panel never runs without authentication (a panel open to anyone who reaches "
            "its port is how servers get taken over); set password_hash with `qeli "
            "set-web-password`");
  }
  w.tls = r.get_bool("tls", false);
  w.tls_cert = r.get_string("tls_cert", "");
  w.tls_key = r.get_string("tls_key", "");
  w.allowed_ips = r.get_cidr_list("allowed_ips", /*allow_bare=*/true);
  w.public_host = r.get_string("public_host", "");
  if (is_ipv6_literal(w.public_host) || w.public_host.find('[') != std::string::npos) {
    r.error("public_host",
            "IPv6 hosts cannot be used in qeli:// links (0.7.x clients refuse "
            "them)");
  }
  w.allowed_origins = r.get_list("allowed_origins", {});
  w.secure_cookie = r.get_bool("secure_cookie", w.tls);
  w.trusted_proxies = r.get_cidr_list("trusted_proxies", /*allow_bare=*/true);
  w.base_path = r.get_string("base_path", "");
  if (!w.base_path.empty()) {
    // It lands in Location and Set-Cookie Path unescaped: one path, nothing else.
    const bool chars_ok = std::all_of(w.base_path.begin(), w.base_path.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '/' || c == '-' || c == '_' ||
             c == '.';
    });
    if (w.base_path.front() != '/' || w.base_path.starts_with("//") || !chars_ok) {
      r.error("base_path",
              "must be a path like /panel: starting with one '/', of letters, digits, "
              "'/', '-', '_' and '.'");
    }
  }
  w.csrf = r.get_bool("csrf", true);
  w.session_ttl = r.get_secs("session_ttl_secs", w.session_ttl, seconds{1}, seconds{2592000});
  w.persist_session_key = r.get_bool("persist_session_key", true);
  w.update_check = r.get_bool("update_check", false);
  w.state_db = r.get_string("state_db", w.state_db);
  w.brute_force = read_brute_force(r, "brute_force.");
  if (w.enabled && w.bind != "127.0.0.1" && w.bind != "::1") {
    r.warning("bind",
              "`" + w.bind +
                  "` is not loopback: anyone who reaches the port reaches the panel's HTTP "
                  "parser (Debian's cpp-httplib 0.11, with known flaws; the panel bounds what "
                  "reaches it) and can hold its 4 workers for seconds at a time; prefer an SSH "
                  "tunnel or a reverse proxy (nginx) in front of 127.0.0.1");
  }
  if (w.enabled && w.password_hash.empty()) {
    r.error("password_hash",
            "enabled = true needs the admin's password hash (the panel never runs without "
            "one); set it with `qeli set-web-password`");
  } else if (!w.password_hash.empty() && !crypto::argon2id_is_phc(w.password_hash)) {
    r.error("password_hash",
            "not an Argon2id PHC string ($argon2id$v=19$m=..,t=..,p=..$salt$hash)");
  }
  if (!w.tls && (!w.tls_cert.empty() || !w.tls_key.empty())) {
    r.warning("tls_cert",
              "tls = false: tls_cert and tls_key are not used (the panel speaks plain HTTP)");
  }
  if ((w.tls_cert.empty()) != (w.tls_key.empty())) {
    r.error(w.tls_cert.empty() ? "tls_cert" : "tls_key", "tls_cert and tls_key go together");
  }
  refuse_unbuilt(w, [&r](std::string_view key, std::string why) { r.error(key, std::move(why)); });
  return w;
}

GroupConfig read_group(SectionReader& r, std::string name) {
  GroupConfig g;
  g.name = std::move(name);
  g.line = r.line();
  g.bandwidth_limit_mbps = r.get_double("bandwidth_limit_mbps", 0, 0, 1e6);
  g.max_sessions = r.get_u<std::uint32_t>("max_sessions", 0, 0, 1000000);
  g.allowed_networks =
      r.get_network_list("allowed_networks", /*allow_bare=*/true, g.allowed_networks6);
  return g;
}

void load_sections(const IniDocument& doc, ServerConfig& cfg, Findings& f,
                   std::vector<UserConfig>& inline_users) {
  bool seen_auth = false, seen_web = false, seen_logging = false, seen_metrics = false,
       seen_webhooks = false;
  auto once = [&](bool& seen, const IniSection& s) {
    if (seen) {
      f.error(doc.file, s.name, "", s.line, "section given more than once");
      return false;
    }
    seen = true;
    return true;
  };
  for (const auto& s : doc.sections) {
    SectionReader r(s, doc.file, f);
    const auto colon = s.name.find(':');
    const std::string kind = s.name.substr(0, colon);
    const std::string obj = colon == std::string::npos ? "" : s.name.substr(colon + 1);
    if (s.name.empty()) {
      for (const auto& e : s.entries) {
        f.error(doc.file, "", e.key, e.line, "key outside of any [section]");
      }
      continue;
    }
    if (s.name == "auth" || s.name == "web" || s.name == "logging" || s.name == "metrics" ||
        s.name == "webhooks") {
      // A repeated singleton section is refused as a whole (error above), not merged.
      bool& seen = s.name == "auth"      ? seen_auth
                   : s.name == "web"     ? seen_web
                   : s.name == "logging" ? seen_logging
                   : s.name == "metrics" ? seen_metrics
                                         : seen_webhooks;
      if (!once(seen, s)) continue;
      if (s.name == "auth") cfg.auth = read_auth(r);
      if (s.name == "web") cfg.web = read_web(r);
      if (s.name == "logging") cfg.logging = read_logging_section(r);
      if (s.name == "metrics") cfg.metrics = read_metrics_section(r);
      if (s.name == "webhooks") cfg.webhooks = read_webhooks_section(r);
    } else if (colon != std::string::npos && kind == "profile") {
      if (!is_valid_object_name(obj)) {
        f.error(doc.file, s.name, "", s.line, "profile names use letters, digits, - _ . @");
        continue;
      }
      cfg.profiles.push_back(read_profile(r, obj));
    } else if (colon != std::string::npos && kind == "group") {
      if (!is_valid_object_name(obj)) {
        f.error(doc.file, s.name, "", s.line, "group names use letters, digits, - _ . @");
        continue;
      }
      cfg.groups.push_back(read_group(r, obj));
    } else if (colon != std::string::npos && kind == "user") {
      continue;  // read below by read_user_sections
    } else {
      std::string hint;
      if (s.name.starts_with("profile.")) hint = " (did you mean [profile:NAME]?)";
      if (s.name == "qeli") hint = " ([qeli] belongs in a client config: use --client)";
      f.error(doc.file, s.name, "", s.line, "unknown section" + hint);
      continue;
    }
    r.finish();
  }
  read_user_sections(doc, /*allow_other_sections=*/true, inline_users, f);
}

}  // namespace

namespace {

// [webhooks] secret_file: read with the config, so check-config and start-up judge it alike.
// Trailing white space (a newline from `echo`) is not part of the key.
void read_webhook_secret(ServerConfig& cfg, Findings& f) {
  auto& w = cfg.webhooks;
  if (!w.enabled || w.secret_file.empty()) return;
  const std::string path = cfg.webhooks_secret_path();
  std::ifstream in(path, std::ios::binary);
  std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) {
    f.error(cfg.file, "webhooks", "secret_file", 0, "cannot read " + path);
    return;
  }
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())) != 0) s.pop_back();
  if (s.size() < 32) {
    f.error(cfg.file, "webhooks", "secret_file", 0,
            path + " holds " + std::to_string(s.size()) +
                " bytes; a webhook secret needs at least 32 (openssl rand -hex 32)");
    return;
  }
  w.secret = std::move(s);
}

// [webhooks] outbox: start-up cannot open it without its directory (SQLite makes the file,
// never the folder), so check-config refuses the same config with the same words.
void check_webhook_outbox(const ServerConfig& cfg, Findings& f) {
  if (!cfg.webhooks.enabled || cfg.webhooks.outbox.empty()) return;
  const std::filesystem::path dir = std::filesystem::path(cfg.webhooks_outbox_path()).parent_path();
  std::error_code ec;
  if (!dir.empty() && !std::filesystem::is_directory(dir, ec)) {
    f.error(cfg.file, "webhooks", "outbox", 0,
            "directory " + dir.string() +
                " does not exist (the package makes /var/lib/qeli/server; create it, owned by "
                "the service user, or point outbox elsewhere)");
  }
}

}  // namespace

namespace {

// The loaders' one body. `users_text`: the users file's content as it is about to be
// written (edit-user), else null and the file is read from disk.
ServerLoad load_text(std::string_view text, const std::string& file,
                     const std::string_view* users_text) {
  ServerLoad out;
  out.config.file = file;
  const IniDocument doc = parse_ini(text, file, out.findings);
  std::vector<UserConfig> inline_users;
  load_sections(doc, out.config, out.findings, inline_users);

  // Users: inline sections ∪ the users file; on the same name the file wins (0.7.16).
  std::vector<UserConfig> file_users;
  const std::string users_path = out.config.users_file_path();
  std::error_code ec;
  if (users_text != nullptr) {
    const IniDocument udoc = parse_ini(*users_text, users_path, out.findings);
    read_user_sections(udoc, /*allow_other_sections=*/false, file_users, out.findings);
  } else if (std::filesystem::exists(users_path, ec)) {
    IniDocument udoc;
    if (read_ini_file(users_path, udoc, out.findings)) {
      read_user_sections(udoc, /*allow_other_sections=*/false, file_users, out.findings);
    }
  } else if (out.config.auth.users_file_explicit) {
    out.findings.error(file, "auth", "users_file", 0,
                       "users file " + users_path + " does not exist");
  } else {
    out.findings.warning(file, "auth", "users_file", 0,
                         "default users file " + users_path +
                             " does not exist; only inline [user:NAME] sections are used");
  }
  for (auto& u : file_users) out.config.users.push_back(std::move(u));
  for (auto& u : inline_users) {
    if (out.config.find_user(u.name) != nullptr) {
      out.findings.warning(file, "user:" + u.name, "", u.line,
                           "also defined in " + users_path + "; the users file wins");
      continue;
    }
    out.config.users.push_back(std::move(u));
  }
  read_webhook_secret(out.config, out.findings);
  check_webhook_outbox(out.config, out.findings);
  validate_server_config(out.config, out.findings);
  return out;
}

}  // namespace

ServerLoad load_server_config_text(std::string_view text, const std::string& file) {
  return load_text(text, file, nullptr);
}

ServerLoad load_server_config(const std::string& path) {
  return load_config_file<ServerLoad>(
      path, [&](std::string_view text) { return load_server_config_text(text, path); });
}

ServerLoad load_server_config_with_users(const std::string& path, std::string_view users_text) {
  return load_config_file<ServerLoad>(
      path, [&](std::string_view text) { return load_text(text, path, &users_text); });
}

const ProfileConfig* ServerConfig::find_profile(std::string_view name) const {
  for (const auto& p : profiles) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

const DeviceCredential* UserConfig::find_device(std::string_view id) const {
  for (const auto& d : devices) {
    if (d.id == id) return &d;
  }
  return nullptr;
}

const UserConfig* ServerConfig::find_user(std::string_view name) const {
  for (const auto& u : users) {
    if (u.name == name) return &u;
  }
  return nullptr;
}

std::string ServerConfig::users_file_path() const { return beside_config(file, auth.users_file); }

std::string ServerConfig::identity_dir_path() const {
  return beside_config(file, auth.identity_dir);
}

std::string ServerConfig::webhooks_outbox_path() const {
  return beside_config(file, webhooks.outbox);
}

std::string ServerConfig::webhooks_secret_path() const {
  return webhooks.secret_file.empty() ? std::string() : beside_config(file, webhooks.secret_file);
}

std::string ServerConfig::web_tls_cert_path() const {
  return web.tls_cert.empty() ? std::string() : beside_config(file, web.tls_cert);
}

std::string ServerConfig::web_tls_key_path() const {
  return web.tls_key.empty() ? std::string() : beside_config(file, web.tls_key);
}

std::string ServerConfig::web_state_db_path() const {
  return web.state_db.empty() ? std::string() : beside_config(file, web.state_db);
}

}  // namespace qeli::config
