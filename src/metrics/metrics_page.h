// The qeli_* series (docs/OPERATIONS.md "Metrics" lists them) built from the typed control
// API's answers, so the server's own endpoint and, later, the panel (over the control
// socket) publish the same page from the same counters `qeli stats` prints.
//
// Labels are closed sets (panels.md §6.6): `profile` (the operator's, bounded), `outcome`,
// `reason` (a counter's existing name), `direction` (`rx` = client → server, `tx` =
// server → client). Per-user series (`user` label) only when asked for, for at most
// `limit` users: those with the most traffic; the others get no series (a summed "other"
// counter would go down whenever a user moved into the top N, which Prometheus reads as a
// counter reset), and qeli_metrics_users_omitted says how many they are.
#pragma once

#include <cstdint>
#include <string>

#include "base/result.h"
#include "control/api.h"
#include "metrics/exposition.h"

namespace qeli::metrics {

struct PerUserSeries {
  bool enabled = false;
  std::uint32_t limit = 100;
};

/// Server-wide and per-profile families from a `stats` answer.
void add_stats(Exposition& e, const control::StatsSnapshot& stats);
/// Per-user families: bytes from `usage` (lifetime totals), live sessions from `sessions`.
void add_users(Exposition& e, const control::UsageList& usage, const control::SessionList& sessions,
               std::uint32_t limit);

/// The whole page, asked of `service` (stats; with per-user series also list-clients and
/// usage). Error: what the service refused.
Result<std::string, std::string> metrics_page(control::ControlService& service,
                                              const PerUserSeries& per_user);

}  // namespace qeli::metrics
