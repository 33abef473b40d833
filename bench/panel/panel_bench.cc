// The panel's pages and API answers with 1000 users, 200 live sessions and 1000 events
// (issue 17's sizing), each answer going through the control API's JSON both ways as it
// would over the socket (encode_reply → decode_reply), so the time is the panel's part of
// a request: the server's answer parsed, the page rendered and escaped. The state_db holds
// 30 days of 5-minute traffic buckets for the server and for each of the 1000 users (8.64
// million rows: the worst case, every user moving bytes every 5 minutes for a month). The
// target: under 50 ms per page (docs/BENCHMARKS.md "Web panel").
#include <benchmark/benchmark.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cstring>

#include "control/api_json.h"
#include "crypto/argon2id.h"
#include "panel/admin_accounts.h"
#include "panel/admin_sessions.h"
#include "panel/api_tokens.h"
#include "panel/panel_app.h"
#include "panel/traffic_history.h"

namespace qeli::panel {
namespace {

class ScaledServer final : public control::ControlService {
 public:
  ScaledServer() {
    for (int i = 0; i < 1000; ++i) {
      control::UserInfo u;
      u.name = "user" + std::to_string(i);
      u.group = i % 3 == 0 ? "staff" : "";
      u.sessions = i < 200 ? 1 : 0;
      u.profiles = {"main"};
      u.metadata = {{"note", "customer <" + std::to_string(i) + ">"}};
      users_.users.push_back(u);
      usage_.users.push_back({u.name, 1'000'000ULL * i, 500'000ULL * i, std::nullopt, 0, false});
    }
    for (int i = 0; i < 200; ++i) {
      control::SessionInfo s;
      s.id = static_cast<std::uint64_t>(i);
      s.profile = "main";
      s.username = "user" + std::to_string(i);
      s.device = s.username + ":0123456789abcdef";
      s.tunnel_ip = "10.9." + std::to_string(i / 250) + "." + std::to_string(i % 250 + 2);
      s.peer = "198.51.100." + std::to_string(i % 250) + ":40000";
      s.rx_bytes = 123456789;
      s.tx_bytes = 987654321;
      s.client_version = "0.7.16";
      for (int c = 0; c < 20; ++c) s.counters.push_back({"counter_" + std::to_string(c), 42});
      sessions_.clients.push_back(s);
    }
    for (int i = 0; i < 1000; ++i) {
      control::Event e;
      e.seq = static_cast<std::uint64_t>(i + 1);
      e.unix_ms = 1'800'000'000'000 + i;
      e.type = "session.connected";
      e.username = "user" + std::to_string(i % 1000);
      events_.events.push_back(e);
    }
    events_.last_seq = 1000;
    for (int i = 0; i < 500; ++i) {
      logs_.lines.push_back({static_cast<std::uint64_t>(i + 1), 1'800'000'000'000 + i,
                             i % 10 == 0 ? "warning" : "info",
                             "[e2e] 198.51.100." + std::to_string(i % 250) +
                                 ":40000 session of 'user" + std::to_string(i) +
                                 "' ended: idle for 180 s (rx 123456 B, tx 654321 B)"});
    }
    logs_.last_seq = 500;
    stats_.version = "bench";
    stats_.users = 1000;
    control::ProfileStats p;
    p.profile = "main";
    p.transport = "tcp";
    p.mode = "reality";
    p.sessions = 200;
    stats_.profiles = {p};
  }

  Result<control::Response, control::ControlError> handle(const control::Request& req,
                                                          const control::Caller&) override {
    control::Response r = std::visit(
        [&](const auto& q) -> control::Response {
          using T = std::decay_t<decltype(q)>;
          if constexpr (std::is_same_v<T, control::ListSessions>) return sessions_;
          if constexpr (std::is_same_v<T, control::ListUsers>) return users_;
          if constexpr (std::is_same_v<T, control::GetUsage>) return usage_;
          if constexpr (std::is_same_v<T, control::GetEvents>) return events_;
          if constexpr (std::is_same_v<T, control::GetStats>) return stats_;
          if constexpr (std::is_same_v<T, control::GetLogs>) return logs_;
          return control::Empty{};
        },
        req);
    // The socket's JSON, both ways.
    const std::string wire = control::encode_reply(r).dump();
    return control::decode_reply(req, nlohmann::json::parse(wire));
  }

 private:
  control::UserList users_;
  control::UsageList usage_;
  control::SessionList sessions_;
  control::EventList events_;
  control::StatsSnapshot stats_;
  control::LogLines logs_;
};

constexpr std::int64_t kNow = 1'800'000'000;
constexpr std::int64_t kFirstBucket = kNow - kRetentionSecs + kBucketSecs;

struct Fixture {
  ScaledServer server;
  SessionKey key{};
  std::string hash = *crypto::argon2id_hash("pw");
  PanelApp app{[this] {
                 PanelSettings s;
                 s.password_hash = hash;
                 return s;
               }(),
               server, key,
               PanelClock{[] { return std::int64_t{1'800'000'000}; }, [] { return Instant{}; },
                          [](Duration) {}}};
  std::string cookie;
  // A token in a real SQLite file (each use is a lookup and an update of its last use).
  std::string db = "/tmp/qeli-panel-bench-" + std::to_string(::getpid()) + ".db";
  std::unique_ptr<ApiTokens> tokens;
  std::string bearer;
  // A further admin (role admin) in the same file: its cookie costs a lookup per request.
  std::unique_ptr<AdminAccounts> admins;
  std::string admin_cookie;
  // 30 days of 5-minute traffic buckets (the dashboard draws the last day's 288).
  std::unique_ptr<TrafficHistory> traffic;
  Fixture() {
    AdminSessions issuer(key, 86400);
    cookie = std::string("qeli_session=") + issuer.issue("admin", hash, 1'800'000'000);
    auto opened = ApiTokens::open(db);
    if (opened.ok()) tokens = std::move(*opened);
    crypto::DeterministicRng rng(1);
    bearer = "Bearer " + tokens->create("bench", 1 | 8, 30, 1'800'000'000, rng)->token;
    app.set_tokens(tokens.get());
    auto a = AdminAccounts::open(db);
    admins = std::move(*a);
    const auto op = admins->create("op", AdminRole::kAdmin, hash, 1'800'000'000, "admin");
    admin_cookie =
        std::string("qeli_session=") + issuer.issue("op", session_credential(*op), 1'800'000'000);
    app.set_admins(admins.get());
    auto th = TrafficHistory::open(db);
    traffic = std::move(*th);
    for (std::int64_t t = kFirstBucket; t <= kNow; t += kBucketSecs) {
      traffic->add(t, {static_cast<std::uint64_t>(t % 7919) * 100000, 1000});
    }
    // Every user every bucket, in the order the sampler writes them (bucket after bucket),
    // in one transaction of a connection of its own: 8640 add_users() calls would each
    // wait for a commit to disk (15 minutes on this box), for the same table.
    sqlite3* raw = nullptr;
    if (sqlite3_open(db.c_str(), &raw) == SQLITE_OK) {
      const std::string fill =
          "WITH RECURSIVE b(t) AS (SELECT " + std::to_string(kFirstBucket) +
          " UNION ALL SELECT t + " + std::to_string(kBucketSecs) + " FROM b WHERE t < " +
          std::to_string(traffic_bucket_of(kNow)) +
          "), u(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM u WHERE n < 999)"
          " INSERT INTO user_traffic_history (user, start, down, up)"
          " SELECT 'user' || n, t, (t % 7919) * 1000, 100 FROM b, u ORDER BY t, n";
      sqlite3_exec(raw, "BEGIN", nullptr, nullptr, nullptr);
      sqlite3_exec(raw, fill.c_str(), nullptr, nullptr, nullptr);
      sqlite3_exec(raw, "COMMIT", nullptr, nullptr, nullptr);
    }
    sqlite3_close(raw);
    app.set_traffic(traffic.get());
  }
  ~Fixture() {
    traffic.reset();
    admins.reset();
    tokens.reset();
    for (const char* ext : {"", "-wal", "-shm"}) ::unlink((db + ext).c_str());
  }
};

Fixture& fixture() {
  static Fixture f;
  return f;
}

enum class As { kOwner, kToken, kAdmin };

void run(benchmark::State& state, const char* path, As as = As::kOwner) {
  auto& f = fixture();
  HttpRequest r;
  r.method = "GET";
  r.path = path;
  if (const char* q = std::strchr(path, '?')) {
    r.path.resize(static_cast<std::size_t>(q - path));
    r.query = q + 1;
  }
  r.remote_ip = "127.0.0.1";
  if (as == As::kToken) {
    r.headers = {{"authorization", f.bearer}};
  } else {
    r.headers = {{"cookie", as == As::kAdmin ? f.admin_cookie : f.cookie}};
  }
  std::size_t bytes = 0;
  for (auto _ : state) {
    const HttpResponse out = f.app.handle(r);
    if (out.status != 200) state.SkipWithError("not 200");
    bytes = out.body.size();
    benchmark::DoNotOptimize(out.body.data());
  }
  state.counters["answer_bytes"] = static_cast<double>(bytes);
}

void BM_Dashboard(benchmark::State& s) { run(s, "/"); }
void BM_SessionsPage(benchmark::State& s) { run(s, "/sessions"); }
void BM_UsersPage(benchmark::State& s) { run(s, "/users"); }
void BM_EventsPage(benchmark::State& s) { run(s, "/events"); }
void BM_ApiSessions(benchmark::State& s) { run(s, "/api/v1/sessions"); }
void BM_ApiUsers(benchmark::State& s) { run(s, "/api/v1/users"); }
void BM_UserPage(benchmark::State& s) { run(s, "/users/view?name=user500"); }
void BM_ApiSessionsToken(benchmark::State& s) { run(s, "/api/v1/sessions", As::kToken); }
void BM_MetricsToken(benchmark::State& s) { run(s, "/metrics", As::kToken); }
void BM_ApiSessionsAdmin(benchmark::State& s) { run(s, "/api/v1/sessions", As::kAdmin); }
void BM_LogsPage(benchmark::State& s) { run(s, "/logs"); }
void BM_ApiTraffic30d(benchmark::State& s) { run(s, "/api/v1/traffic?hours=720"); }
void BM_ApiUserTraffic30d(benchmark::State& s) { run(s, "/api/v1/traffic?hours=720&user=user500"); }
// The sampler's write every 30 s: 1000 users' deltas into the full table (and the
// retention's look for buckets to drop).
void BM_SampleUsers(benchmark::State& state) {
  auto& f = fixture();
  std::vector<UserTrafficDelta> deltas;
  for (int u = 0; u < 1000; ++u) deltas.push_back({"user" + std::to_string(u), {1000, 100}});
  for (auto _ : state) {
    if (!f.traffic->add_users(1'800'000'000, deltas)) state.SkipWithError("add_users failed");
  }
}
BENCHMARK(BM_Dashboard)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SessionsPage)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_UsersPage)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_EventsPage)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ApiSessions)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ApiUsers)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_UserPage)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ApiSessionsToken)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MetricsToken)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ApiSessionsAdmin)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LogsPage)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ApiTraffic30d)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ApiUserTraffic30d)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SampleUsers)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace qeli::panel

BENCHMARK_MAIN();
