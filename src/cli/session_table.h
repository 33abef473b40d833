// The tables of `qeli list-clients` and `qeli list-blocked` in 0.7.16's column order and
// cell wording (reference §6.1), because operators' scripts read them: the user name is
// the first field of a row and the drop count the last (0.7.16's own benchmark script
// does exactly that). Our extra columns stand between, before DROPS; an empty list is one
// line, as 0.7.16 prints it. `--json` is the form to parse; this is the form to read.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "control/api.h"

namespace qeli::cli {

/// 0.7.16's uptime: "42s", "3m5s", "2h7m".
std::string legacy_uptime(std::int64_t secs);
/// 0.7.16's byte counts: "512 B", "1.5 KB", "2.0 MB", "1.25 GB" (binary multiples).
std::string legacy_bytes(std::uint64_t bytes);
/// 0.7.16's lockout time left: "45s", "14m 5s".
std::string legacy_wait(std::int64_t secs);

/// USERNAME IP SOURCE UPTIME SENT RECV CLIENT PROFILE IPV6 STREAMS ROAMS DROPS, one row a
/// session (SENT/RECV from the server's side: what it sent to the client and received
/// from it; DROPS every drop_* counter of the session summed); "No clients connected."
void print_sessions(const std::vector<control::SessionInfo>& sessions, std::ostream& out);

/// IP ADDRESS FAILURES UNBLOCK IN USER ("(every user)" for a whole address); "No blocked
/// IPs." when there are none.
void print_lockouts(const std::vector<control::BlockedAddress>& blocked, std::ostream& out);

}  // namespace qeli::cli
