#include "panel/traffic_history.h"

#include <cmath>

#include <sqlite3.h>

#include <algorithm>
#include <cstdio>
#include <map>

#include "panel/html.h"

namespace qeli::panel {
namespace {

std::uint64_t counter(const std::vector<control::CounterValue>& v, std::string_view name) {
  for (const auto& c : v)
    if (c.name == name) return c.value;
  return 0;
}

// SQLite keeps signed 64-bit integers: byte counts are stored as such (2^63 bytes is
// beyond any link's lifetime).
std::int64_t as_sql(std::uint64_t v) {
  return static_cast<std::int64_t>(std::min<std::uint64_t>(v, INT64_MAX));
}

// The rows of a (start, down, up) query, oldest first.
std::vector<TrafficPoint> points_of(server::Statement& st) {
  std::vector<TrafficPoint> out;
  while (sqlite3_step(st.get()) == SQLITE_ROW) {
    out.push_back(
        {sqlite3_column_int64(st.get(), 0),
         static_cast<std::uint64_t>(std::max<std::int64_t>(0, sqlite3_column_int64(st.get(), 1))),
         static_cast<std::uint64_t>(std::max<std::int64_t>(0, sqlite3_column_int64(st.get(), 2)))});
  }
  return out;
}

std::string fixed(double v, int decimals) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

}  // namespace

std::int64_t traffic_bucket_of(std::int64_t unix_secs) {
  return unix_secs - ((unix_secs % kBucketSecs) + kBucketSecs) % kBucketSecs;
}

TrafficTotals totals_of(const control::StatsSnapshot& stats) {
  TrafficTotals t;
  t.server_started_unix = stats.started_unix_secs;
  for (const auto& p : stats.profiles) {
    t.down_bytes += counter(p.traffic, "tx_bytes");
    t.up_bytes += counter(p.traffic, "rx_bytes");
  }
  return t;
}

std::optional<TrafficDelta> TrafficMeter::observe(const TrafficTotals& now) {
  const auto last = std::exchange(last_, now);
  if (!last) return std::nullopt;
  const bool restarted = now.server_started_unix != last->server_started_unix ||
                         now.down_bytes < last->down_bytes || now.up_bytes < last->up_bytes;
  if (restarted) return TrafficDelta{now.down_bytes, now.up_bytes};
  return TrafficDelta{now.down_bytes - last->down_bytes, now.up_bytes - last->up_bytes};
}

std::vector<UserTrafficDelta> UserTrafficMeter::observe(const control::UsageList& usage,
                                                        const std::optional<TrafficDelta>& server) {
  std::unordered_map<std::string, Totals> now;
  now.reserve(usage.users.size());
  for (const auto& u : usage.users) now[u.username] = {u.down_bytes, u.up_bytes};
  std::vector<UserTrafficDelta> out;
  if (last_ && server) {
    // Grown: the growth. New or gone down: from zero, at most what the server moved.
    const auto moved = [](std::uint64_t total, const std::uint64_t* before, std::uint64_t cap) {
      return before != nullptr && total >= *before ? total - *before : std::min(total, cap);
    };
    for (const auto& [user, t] : now) {
      const auto it = last_->find(user);
      const Totals* before = it == last_->end() ? nullptr : &it->second;
      const TrafficDelta d{
          moved(t.down_bytes, before ? &before->down_bytes : nullptr, server->down_bytes),
          moved(t.up_bytes, before ? &before->up_bytes : nullptr, server->up_bytes)};
      if (d.down_bytes != 0 || d.up_bytes != 0) out.push_back({user, d});
    }
  }
  last_ = std::move(now);
  return out;
}

Result<std::unique_ptr<TrafficHistory>, std::string> TrafficHistory::open(const std::string& path) {
  auto db = server::SqliteDb::open(
      path,
      "CREATE TABLE IF NOT EXISTS traffic_history (start INTEGER PRIMARY KEY NOT NULL,"
      " down INTEGER NOT NULL DEFAULT 0, up INTEGER NOT NULL DEFAULT 0);"
      "CREATE TABLE IF NOT EXISTS user_traffic_history (user TEXT NOT NULL,"
      " start INTEGER NOT NULL, down INTEGER NOT NULL DEFAULT 0, up INTEGER NOT NULL DEFAULT 0,"
      " PRIMARY KEY (user, start)) WITHOUT ROWID;"
      "CREATE INDEX IF NOT EXISTS user_traffic_history_start ON user_traffic_history (start);");
  if (!db.ok()) return fail(db.error());
  return std::unique_ptr<TrafficHistory>(new TrafficHistory(std::move(*db)));
}

bool TrafficHistory::add(std::int64_t now_unix, const TrafficDelta& d) {
  std::lock_guard lock(mu_);
  server::Statement up(
      *db_,
      "INSERT INTO traffic_history (start, down, up) VALUES (?1, ?2, ?3)"
      " ON CONFLICT(start) DO UPDATE SET down = min(down + ?2, 9223372036854775807),"
      " up = min(up + ?3, 9223372036854775807)");
  if (!up.ok()) return false;
  sqlite3_bind_int64(up.get(), 1, traffic_bucket_of(now_unix));
  sqlite3_bind_int64(up.get(), 2, as_sql(d.down_bytes));
  sqlite3_bind_int64(up.get(), 3, as_sql(d.up_bytes));
  if (sqlite3_step(up.get()) != SQLITE_DONE) return false;
  server::Statement prune(*db_, "DELETE FROM traffic_history WHERE start < ?1");
  if (!prune.ok()) return false;
  sqlite3_bind_int64(prune.get(), 1, traffic_bucket_of(now_unix) - kRetentionSecs);
  return sqlite3_step(prune.get()) == SQLITE_DONE;
}

std::vector<TrafficPoint> TrafficHistory::range(std::int64_t from_unix, std::int64_t to_unix) {
  std::lock_guard lock(mu_);
  server::Statement st(
      *db_,
      "SELECT start, down, up FROM traffic_history WHERE start >= ?1 AND start < ?2"
      " ORDER BY start");
  if (!st.ok()) return {};
  sqlite3_bind_int64(st.get(), 1, from_unix);
  sqlite3_bind_int64(st.get(), 2, to_unix);
  return points_of(st);
}

bool TrafficHistory::add_users(std::int64_t now_unix, const std::vector<UserTrafficDelta>& deltas) {
  std::lock_guard lock(mu_);
  if (!db_->exec("BEGIN")) return false;
  bool ok = true;
  {
    server::Statement up(
        *db_,
        "INSERT INTO user_traffic_history (user, start, down, up) VALUES (?1, ?2, ?3, ?4)"
        " ON CONFLICT(user, start) DO UPDATE SET down = min(down + ?3, 9223372036854775807),"
        " up = min(up + ?4, 9223372036854775807)");
    ok = up.ok();
    for (const auto& d : deltas) {
      if (!ok) break;
      sqlite3_reset(up.get());
      up.bind_text(1, d.user);
      sqlite3_bind_int64(up.get(), 2, traffic_bucket_of(now_unix));
      sqlite3_bind_int64(up.get(), 3, as_sql(d.moved.down_bytes));
      sqlite3_bind_int64(up.get(), 4, as_sql(d.moved.up_bytes));
      ok = sqlite3_step(up.get()) == SQLITE_DONE;
    }
    // The oldest buckets through the index on start: the rows past the retention, no scan.
    server::Statement prune(*db_, "DELETE FROM user_traffic_history WHERE start < ?1");
    ok = ok && prune.ok();
    if (ok) {
      sqlite3_bind_int64(prune.get(), 1, traffic_bucket_of(now_unix) - kRetentionSecs);
      ok = sqlite3_step(prune.get()) == SQLITE_DONE;
    }
  }
  return db_->exec(ok ? "COMMIT" : "ROLLBACK") && ok;
}

std::vector<TrafficPoint> TrafficHistory::user_range(std::string_view user, std::int64_t from_unix,
                                                     std::int64_t to_unix) {
  std::lock_guard lock(mu_);
  server::Statement st(*db_,
                       "SELECT start, down, up FROM user_traffic_history WHERE user = ?1"
                       " AND start >= ?2 AND start < ?3 ORDER BY start");
  if (!st.ok()) return {};
  st.bind_text(1, user);
  sqlite3_bind_int64(st.get(), 2, from_unix);
  sqlite3_bind_int64(st.get(), 3, to_unix);
  return points_of(st);
}

std::string traffic_chart_svg(Lang l, const std::vector<TrafficPoint>& points,
                              std::int64_t from_unix, std::int64_t to_unix) {
  constexpr double kW = 720, kH = 160, kLeft = 8, kTop = 8;
  const std::int64_t first = traffic_bucket_of(from_unix);
  const std::int64_t span = std::max<std::int64_t>(to_unix - first, kBucketSecs);
  std::map<std::int64_t, const TrafficPoint*> by_start;
  for (const auto& p : points) by_start[p.start_unix] = &p;
  auto mbps = [](std::uint64_t bytes) {
    return static_cast<double>(bytes) * 8.0 / static_cast<double>(kBucketSecs) / 1e6;
  };
  double peak = 0;
  for (const auto& p : points) peak = std::max({peak, mbps(p.down_bytes), mbps(p.up_bytes)});
  const double top = peak > 0 ? peak * 1.1 : 1.0;
  std::string down_line, up_line;
  for (std::int64_t b = first; b < to_unix; b += kBucketSecs) {
    const auto it = by_start.find(b);
    const double x =
        kLeft + kW * static_cast<double>(b + kBucketSecs / 2 - first) / static_cast<double>(span);
    const double d = it == by_start.end() ? 0 : mbps(it->second->down_bytes);
    const double u = it == by_start.end() ? 0 : mbps(it->second->up_bytes);
    down_line += fixed(x, 1) + "," + fixed(kTop + kH - kH * d / top, 1) + " ";
    up_line += fixed(x, 1) + "," + fixed(kTop + kH - kH * u / top, 1) + " ";
  }
  const double hours = static_cast<double>(to_unix - from_unix) / 3600.0;
  const std::string h = fixed(hours, 0);
  const auto whole_hours = static_cast<std::uint64_t>(std::max(0.0, std::round(hours)));
  std::string s =
      "<svg class=\"chart\" role=\"img\" viewBox=\"0 0 " + fixed(kW + 2 * kLeft, 0) + " " +
      fixed(kH + kTop + 24, 0) + "\" xmlns=\"http://www.w3.org/2000/svg\"><title>" +
      tr_count(l, "Traffic, the last {n} hours, in Mbit/s (5-minute averages)", whole_hours) +
      "</title><rect x=\"" + fixed(kLeft, 0) + "\" y=\"" + fixed(kTop, 0) + "\" width=\"" +
      fixed(kW, 0) + "\" height=\"" + fixed(kH, 0) + "\" fill=\"#fff\" stroke=\"#d5d9e0\"/>";
  s += "<polyline fill=\"none\" stroke=\"#2b6cb0\" stroke-width=\"1.5\" points=\"" + down_line +
       "\"/><polyline fill=\"none\" stroke=\"#c05621\" stroke-width=\"1.5\" points=\"" + up_line +
       "\"/>";
  const double text_y = kTop + kH + 16;
  s += "<text x=\"" + fixed(kLeft, 0) + "\" y=\"" + fixed(text_y, 0) +
       "\" font-size=\"12\" fill=\"#5a6270\">" + tr_html(l, "{hours} h ago", {{"hours", h}}) +
       "</text><text x=\"" + fixed(kLeft + kW, 0) + "\" y=\"" + fixed(text_y, 0) +
       "\" font-size=\"12\" fill=\"#5a6270\" text-anchor=\"end\">" + tr(l, "now") + "</text>";
  s += "<text x=\"" + fixed(kLeft + 4, 0) + "\" y=\"" + fixed(kTop + 14, 0) +
       "\" font-size=\"12\" fill=\"#5a6270\">" +
       tr_html(l, "peak {rate} Mbit/s", {{"rate", fixed(peak, peak < 10 ? 2 : 0)}}) +
       " · <tspan fill=\"#2b6cb0\">" + tr(l, "down") + "</tspan> · <tspan fill=\"#c05621\">" +
       tr(l, "up") + "</tspan></text></svg>";
  return s;
}

}  // namespace qeli::panel
