// The server's side of the control API (control/api.h): ControlHandler answers every
// request from the live server state. The socket (control/control_socket.h) has already
// checked that the caller may make the request. Commands, with the reference's names
// where 0.7.16 had them:
//
//   list-clients                live sessions with per-session counters and drop reasons
//   kick username [session_id]  end the user's sessions, or one of them
//   disable-user / enable-user  kick + refuse new logins until enable-user (in memory)
//   list-blocked / unblock ip / unblock-all
//   stats                       per-profile counters (qeli_* metrics come from here)
//   events after limit          the recent-event ring (server/event_log.h)
//   list-users                  users and groups as the server has them loaded
//   config-get / config-validate / config-save / config-history / config-version / reload
//   add-user / remove-user / edit-user / add-device / revoke-device   the users file (user_admin.h)
//   whoami                      the caller's uid and permissions
//
// Thread-safe as far as its parts are (sessions, users, guard, events and the config
// store lock themselves).
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "base/clock.h"
#include "control/api.h"
#include "server/auth_guard.h"
#include "server/config_store.h"
#include "server/event_log.h"
#include "server/profile_runtime.h"
#include "server/traffic_accounts.h"
#include "server/user_admin.h"
#include "server/user_directory.h"
#include "server/webhook_dispatcher.h"

namespace qeli::server {

struct ControlTargets {
  const std::vector<std::unique_ptr<ProfileRuntime>>* profiles = nullptr;
  UserDirectory* users = nullptr;
  AuthGuard* guard = nullptr;
  EventLog* events = nullptr;             ///< null: `events` answers an empty list
  ConfigStore* config = nullptr;          ///< null: config-* are kUnavailable
  TrafficAccounts* accounts = nullptr;    ///< null: set-bandwidth / usage are kUnavailable
  WebhookDispatcher* webhooks = nullptr;  ///< null: [webhooks] off (no counters in stats)
  UserAdmin* user_admin = nullptr;        ///< null: add-user & co. are kUnavailable
  /// Re-reads the config as SIGHUP does (null: `reload` is kUnavailable).
  std::function<control::ValidationResult()> reload = nullptr;
  Instant started{};
  std::int64_t started_unix_secs = 0;  ///< the wall-clock time of `started`
};

class ControlHandler : public control::ControlService {
 public:
  explicit ControlHandler(
      ControlTargets t,
      std::function<Instant()> now = [] { return std::chrono::steady_clock::now(); })
      : t_(std::move(t)), now_(std::move(now)) {}
  Result<control::Response, control::ControlError> handle(const control::Request& request,
                                                          const control::Caller& caller) override;

 private:
  ControlTargets t_;
  std::function<Instant()> now_;
};

/// The named counters of a profile (the `stats` reply and qeli_* metrics).
std::vector<control::CounterValue> counter_values(const ProfileCounters& c);

}  // namespace qeli::server
