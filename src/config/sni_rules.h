// What a TLS server_name may be, per mode: the client's `sni` key and link `sni=`, and a
// server profile's `obf.tls.server_name` (which links carry and reality-tls probes the
// target with). One home for the rule so a config, a link and a server profile can never
// disagree (RFC 6066 §3: HostName is a DNS host name, never an IP address literal).
#pragma once

#include <string>
#include <string_view>

#include "config/modes.h"

namespace qeli::config {

/// A DNS host name is at most 253 characters (RFC 1035 §2.3.4, without the final dot).
inline constexpr std::size_t kMaxHostNameChars = 253;

/// True for a syntactic DNS host name: dot-separated labels of 1..63 letters, digits,
/// '-' or '_' (no label starts or ends with '-'), at most kMaxHostNameChars in all, an
/// optional final dot, and not an IPv4 literal.
bool is_host_name(std::string_view s);

/// Why `sni` cannot go with `mode` (empty if it can). Every mode: longer than
/// kMaxHostNameChars. reality-tls: anything but a host name — its real TLS hello names
/// the target, so the fake-tls forms `!`, `~`, `@` and an IP literal are refused. An empty
/// `sni` means "not set" and is judged by the caller (client: the host is used).
std::string sni_conflict(ClientMode mode, std::string_view sni);

/// Advice for a `sni` that works but marks the connection (empty if none): an IP address
/// literal, which no browser sends as server_name.
std::string sni_advice(ClientMode mode, std::string_view sni);

}  // namespace qeli::config
