// ProfileEvents: what a profile announces (server/event_log.h: the panel's feed, webhooks)
// and the lockout bookkeeping of failed logins. One per ProfileRuntime, shared by both
// carriers and by admission. Thread-safe (the EventLog and AuthGuard lock themselves).
#pragma once

#include <string>

#include "base/clock.h"
#include "engine/traffic_account.h"
#include "server/auth_guard.h"
#include "server/event_log.h"
#include "server/session.h"
#include "server/source_key.h"
#include "server/user_directory.h"

namespace qeli::server {

class ProfileEvents {
 public:
  /// `guard` and `users` must outlive it.
  ProfileEvents(std::string profile, AuthGuard& guard, UserDirectory& users)
      : profile_(std::move(profile)), guard_(guard), users_(users) {}

  /// Where events go; null = nowhere (failures still count toward lockouts). Set before
  /// sessions start.
  void set_log(EventLog* log) { log_ = log; }

  /// `session.connected` / `session.disconnected` (with why and the session's bytes; a
  /// user over quota at its end also gets its one `user.quota_reached`).
  void connected(const Session& s);
  void ended(const Session& s, const std::string& why);
  /// A failed login of `user` (empty: the address alone) from `ip`, counted by the guard;
  /// when that starts a lockout: one warning line and `auth.lockout`.
  void failure(SourceKey ip, const std::string& user, Instant now);
  /// `user.expired`, once per run per user.
  void expired(const std::string& user);
  /// `user.quota_reached`, once per crossing of the user's quota (the account's latch).
  void quota_reached(const std::string& user, engine::TrafficAccount& account);

 private:
  control::Event session_event(const char* type, const Session& s) const;
  void user_event(const std::string& user, const char* type, const char* reason);

  const std::string profile_;
  AuthGuard& guard_;
  UserDirectory& users_;
  EventLog* log_ = nullptr;
};

}  // namespace qeli::server
