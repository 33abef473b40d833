// The server's [metrics] section: the Prometheus endpoint `qeli server` serves on its own
// (docs/CONFIG.md "Server [metrics]", docs/OPERATIONS.md "Metrics").
#pragma once

#include "config/section_reader.h"
#include "config/server_config.h"

namespace qeli::config {

/// Reads `enabled` (default false), `listen` (IPv4 address:port, default 127.0.0.1:9477),
/// `per_user` (default false) and `per_user_limit` (1..10000, default 100). Bad values
/// become error findings of `r`; a non-loopback `listen` of an enabled endpoint is a
/// warning (the endpoint has no authentication).
MetricsConfig read_metrics_section(SectionReader& r);

}  // namespace qeli::config
