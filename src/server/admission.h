// Admission: whether an AUTH request becomes a session of a profile — the one gate both
// carriers pass (qeli 0.7.16 §6, docs/OPERATIONS.md "Lockouts"), in this order:
//   1. the client key proof, when auth.require_client_key_proof (a failure counts against
//      the source address only);
//   2. lockouts of the address, or of the (address, user) pair — before any Argon2id;
//   3. the user name's tarpit (a sleep on the calling thread);
//   4. ONE Argon2id: against the device credential the password names, else the user's
//      own hash — run even for an unknown user or device, so the answer's timing does not
//      tell which;
//   5. the user: known, right credential, enabled, not disabled by the operator, allowed
//      on this profile, not expired (credential failures are strikes toward a lockout;
//      the rest are strikes too, as 0.7.16 counts every refused login);
//   6. the data quota (not a strike: the user proved who they are);
//   7. the SessionTable: static IP or reservation, max_sessions (the user's, else its
//      group's), the pool, max_clients, bonding's max_streams; the user's
//      `client_subnet`s are claimed for the session (IPv6 ones on a profile with
//      pool.ipv6.cidr).
// Blocking (Argon2id, tarpit): call it on a thread that may wait. Thread-safe.
#pragma once

#include <string>

#include "config/server_config.h"
#include "server/auth_context.h"
#include "server/auth_guard.h"
#include "server/profile_counters.h"
#include "server/profile_events.h"
#include "server/session_table.h"
#include "server/traffic_accounts.h"
#include "server/user_directory.h"

namespace qeli::server {

class Admission {
 public:
  struct Setup {
    const config::ProfileConfig* profile = nullptr;
    bool require_client_key_proof = false;  ///< auth.require_client_key_proof
    AuthGuard* guard = nullptr;
    UserDirectory* users = nullptr;
    SessionTable* sessions = nullptr;
    TrafficAccounts* accounts = nullptr;  ///< null: no per-user limits or quotas
    ProfileEvents* events = nullptr;
    ProfileCounters* counters = nullptr;  ///< locked_out
  };
  /// Everything in `setup` (but accounts) is borrowed and must outlive the object.
  explicit Admission(Setup setup) : s_(setup) {}

  /// True: the session is admitted (ctx.session, ctx.users, ctx.user and ctx.device are
  /// set; the session carries the user's account). False: ctx.reason says why (log text,
  /// never sent to the client).
  bool admit(AuthContext& ctx);

 private:
  Setup s_;
};

}  // namespace qeli::server
