// The server's [webhooks] section (docs/CONFIG.md "Server [webhooks]"), and the one URL
// rule the dispatcher also uses.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "config/section_reader.h"
#include "config/server_config.h"

namespace qeli::config {

/// An http(s) URL as webhooks accept it: `scheme://host[:port][/path][?query]`, no user
/// info, no fragment. `host` is a name, an IPv4 literal or a bracketed IPv6 literal
/// (brackets removed here).
struct HttpUrl {
  bool https = true;
  std::string host;
  std::uint16_t port = 443;
  std::string target = "/";  // path and query, as sent in the request line

  static std::optional<HttpUrl> parse(std::string_view s);
};

/// Reads `enabled`, `url`, `secret_file`, `events`, `outbox`, `timeout_secs` (1..60),
/// `retry_hours` (1..168), `allow_http`, `allow_private`. With `enabled`: url and
/// secret_file are required, an http:// url needs allow_http, event names must be known.
/// The secret itself is read by load_server_config (it needs the config's directory).
WebhooksConfig read_webhooks_section(SectionReader& r);

}  // namespace qeli::config
