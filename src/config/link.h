// qeli:// share links (reference §6.2):
//   qeli://USER:PASS@HOST:PORT?proto=&mode=&key=&sni=&rsid=&obfs=&front=&quic=&awg=&jc=
//          &jmin=&jmax=&mtu=&gateway=#LABEL
// User, password, parameter values and the label are percent-encoded (RFC 3986 §2.1);
// `+` is a literal plus, never a space. Unknown parameters are ignored so newer servers
// can add some. The password travels in clear inside the link: treat a link as a secret.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "config/limits.h"
#include "config/modes.h"

namespace qeli::config {

struct ShareLink {
  std::string user;
  std::string pass;
  std::string host;  // without brackets (an IPv6 literal: our extension; 0.7.x refuses it)
  std::uint16_t port = 0;
  Transport proto = Transport::kTcp;
  ClientMode mode = ClientMode::kFakeTls;
  std::string server_key;  // 64 lower-case hex digits, or empty (TOFU)
  std::optional<std::string> sni;
  std::optional<std::string> reality_sid;  // hex short id
  std::optional<std::string> obfs_key;
  Fronting front = Fronting::kWebsocket;
  bool quic = false;
  bool awg = false;
  std::uint32_t jc = 0;
  std::uint32_t jmin = kAwgJminDefault;
  std::uint32_t jmax = kAwgJmaxDefault;
  std::uint32_t mtu = 0;  // 0 = take the server's
  // `gateway=1`: a full tunnel (our extension; 0.7.16 ignores the parameter, and its links
  // never carry host settings). Unset: the config file's `gateway`, else split tunnel.
  std::optional<bool> gateway;
  std::string label;
};

/// What a user pastes around a link: surrounding white space (a trailing newline from a
/// file or a terminal, spaces, tabs) and one pair of matching quotes ("…", '…', `…`, <…>)
/// — repeatedly, so `  "qeli://…"\n` works. A link never contains white space or quotes
/// of its own (they are percent-encoded), so nothing meaningful is lost.
std::string_view trim_link_text(std::string_view text);

/// Parses a link (after trim_link_text()). Refused (error text returned): another scheme, an empty
/// host, a port that is missing, non-numeric, 0 or > 65535, a bracketed host without `]:port`, bad
/// percent-escapes, and known parameters with malformed values (key not 64 hex digits,
/// rsid not a short id, numbers that do not parse, unknown mode/proto/front names).
Result<ShareLink, std::string> parse_link(std::string_view uri);

/// Emits a link: proto and mode always, every other parameter only when it differs
/// from its default (front only if none, the awg block only if awg, mtu only if != 0).
std::string emit_link(const ShareLink& link);

/// Semantic checks a client applies before using a link (the reference's validation):
/// IPv6 hosts, transport/mode combinations, obfs without key, AWG and MTU ranges.
/// Returns one message per problem; empty means usable.
std::vector<std::string> validate_link(const ShareLink& link);

/// RFC 3986 percent-encoding of everything except unreserved characters.
std::string percent_encode(std::string_view s);
/// Decodes %XX escapes; nullopt on a truncated or non-hex escape.
std::optional<std::string> percent_decode(std::string_view s);

}  // namespace qeli::config
