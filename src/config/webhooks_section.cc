#include "config/webhooks_section.h"

#include <algorithm>
#include <charconv>

namespace qeli::config {

std::optional<HttpUrl> HttpUrl::parse(std::string_view s) {
  HttpUrl u;
  if (s.starts_with("https://")) {
    s.remove_prefix(8);
  } else if (s.starts_with("http://")) {
    s.remove_prefix(7);
    u.https = false;
    u.port = 80;
  } else {
    return std::nullopt;
  }
  if (s.find('#') != std::string_view::npos) return std::nullopt;
  const auto slash = s.find_first_of("/?");
  std::string_view authority = s.substr(0, slash);
  if (slash != std::string_view::npos) {
    u.target = std::string(s.substr(slash));
    if (u.target.front() == '?') u.target.insert(0, "/");
  }
  if (authority.empty() || authority.find('@') != std::string_view::npos) return std::nullopt;
  std::string_view port;
  if (authority.front() == '[') {
    const auto close = authority.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    u.host = std::string(authority.substr(1, close - 1));
    authority.remove_prefix(close + 1);
    if (!authority.empty()) {
      if (authority.front() != ':') return std::nullopt;
      port = authority.substr(1);
    }
  } else {
    const auto colon = authority.find(':');
    u.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port = authority.substr(colon + 1);
  }
  if (u.host.empty()) return std::nullopt;
  for (const char c : u.target) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) return std::nullopt;  // no CR/LF/space
  }
  if (!port.empty() || (authority.size() > 0 && authority.back() == ':')) {
    unsigned v = 0;
    const auto r = std::from_chars(port.data(), port.data() + port.size(), v);
    if (r.ec != std::errc{} || r.ptr != port.data() + port.size() || v == 0 || v > 65535) {
      return std::nullopt;
    }
    u.port = static_cast<std::uint16_t>(v);
  }
  return u;
}

WebhooksConfig read_webhooks_section(SectionReader& r) {
  WebhooksConfig w;
  w.enabled = r.get_bool("enabled", w.enabled);
  w.url = r.get_string("url", "");
  w.secret_file = r.get_string("secret_file", "");
  w.events = r.get_list("events", {});
  w.outbox = r.get_string("outbox", w.outbox);
  w.timeout =
      r.get_secs("timeout_secs", w.timeout, std::chrono::seconds(1), std::chrono::seconds(60));
  w.retry_for = std::chrono::hours(
      r.get_u<std::uint32_t>("retry_hours", static_cast<std::uint32_t>(24), 1, 168));
  w.allow_http = r.get_bool("allow_http", w.allow_http);
  w.allow_private = r.get_bool("allow_private", w.allow_private);
  for (const auto& e : w.events) {
    if (std::find(kWebhookEvents.begin(), kWebhookEvents.end(), e) == kWebhookEvents.end()) {
      std::string known;
      for (const auto k : kWebhookEvents) known += (known.empty() ? "" : ", ") + std::string(k);
      r.error("events", "unknown event `" + e + "` (known: " + known + ")");
    }
  }
  if (w.outbox.empty()) r.error("outbox", "must not be empty (the durable outbox's SQLite file)");
  if (!w.enabled) return w;
  const auto url = HttpUrl::parse(w.url);
  if (w.url.empty()) {
    r.error("url", "required when webhooks are enabled (https://host/path)");
  } else if (!url) {
    r.error("url", "`" + w.url +
                       "` is not an http(s) URL of the form https://host[:port]/path (no user "
                       "info, no fragment)");
  } else if (!url->https && !w.allow_http) {
    r.error("url",
            "plain http:// sends every event in the clear: use https://, or set allow_http = "
            "true for a receiver on this host or a trusted network");
  }
  if (w.secret_file.empty()) {
    r.error("secret_file",
            "required when webhooks are enabled: a file with at least 32 bytes of secret "
            "(e.g. `openssl rand -hex 32 > /etc/qeli/webhook.secret`), the key receivers "
            "verify signatures with");
  }
  return w;
}

}  // namespace qeli::config
