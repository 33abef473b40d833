#include "server/admission.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "base/bytes.h"
#include "config/device_credential.h"
#include "server/auth_ok_builder.h"
#include "server/source_key.h"

namespace qeli::server {

using Clock = std::chrono::steady_clock;

bool Admission::admit(AuthContext& ctx) {
  const auto& p = *s_.profile;
  const auto now = Clock::now();
  const auto& req = ctx.req;
  if (s_.require_client_key_proof && !req.key_proof_ok) {
    s_.events->failure(source_key(ctx.peer), "", now);  // counts against the source IP only
    ctx.reason = "client key proof missing or invalid";
    return false;
  }
  // The pair (address, user) or the whole address: refused before any Argon2 work.
  if (s_.guard->locked_out(source_key(ctx.peer), req.user, now)) {
    s_.counters->locked_out++;
    ctx.reason = s_.guard->locked_out(source_key(ctx.peer), now)
                     ? "source address locked out"
                     : "user locked out at this address after failed logins";
    return false;
  }
  if (auto delay = s_.guard->tarpit(req.user, now); delay > Duration::zero()) {
    std::this_thread::sleep_for(delay);
  }
  ctx.users = s_.users->snapshot();
  ctx.user = ctx.users->find(req.user);
  // A device credential (config/device_credential.h) names the one hash to check; any
  // other password is the user's own. Either way one Argon2id, run even for an unknown
  // user or device so the answer's timing does not tell which.
  const auto device_id = config::device_id_of(req.password);
  const config::DeviceCredential* device =
      device_id && ctx.user != nullptr ? ctx.user->find_device(*device_id) : nullptr;
  const std::string& phc = device != nullptr     ? device->phc
                           : device_id           ? std::string()
                           : ctx.user != nullptr ? ctx.user->password_hash
                                                 : std::string();
  const bool password_ok = s_.guard->verify_password(phc, req.password);
  auto reject = [&](std::string why) {
    s_.events->failure(source_key(ctx.peer), req.user, Clock::now());
    ctx.reason = std::move(why);
    return false;
  };
  if (ctx.user == nullptr) return reject("unknown user");
  if (device_id && device == nullptr) return reject("unknown or revoked device " + *device_id);
  if (!password_ok) return reject(device != nullptr ? "wrong device credential" : "wrong password");
  ctx.device = device != nullptr ? device->id : std::string();
  if (!ctx.user->enabled) return reject("user disabled");
  if (s_.users->disabled(req.user))
    return reject("user disabled by the operator (qeli enable-user)");
  if (!ctx.user->profiles.empty() && std::find(ctx.user->profiles.begin(), ctx.user->profiles.end(),
                                               p.name) == ctx.user->profiles.end()) {
    return reject("user not allowed on this profile");
  }
  if (ctx.user->expire_at) {
    const auto unix_now =
        static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::seconds>(
                                       std::chrono::system_clock::now().time_since_epoch())
                                       .count());
    if (unix_now >= *ctx.user->expire_at) {
      s_.events->expired(req.user);
      return reject("account expired");
    }
  }
  s_.guard->record_success(source_key(ctx.peer), req.user);

  AdmissionRequest ar;
  ar.user = req.user;
  ar.device_key = req.device_id ? req.user + ":" + to_hex(*req.device_id) : req.user;
  if (ctx.user->static_ip) {
    ar.static_ip = ctx.user->static_ip->value;
  } else if (auto it = p.pool.reservations.find(req.user); it != p.pool.reservations.end()) {
    ar.static_ip = it->second.value;
  }
  ar.max_sessions = ctx.user->max_sessions;
  if (ar.max_sessions == 0 && !ctx.user->group.empty()) {
    if (const auto* g = ctx.users->group(ctx.user->group)) ar.max_sessions = g->max_sessions;
  }
  ar.peer = ctx.peer;
  ar.max_streams = bond_max_streams(p);
  ar.subnets = ctx.user->client_subnets;
  // IPv6 networks only where the session can carry IPv6 (the profile's plan).
  if (p.pool.ipv6) ar.subnets6 = ctx.user->client_subnets6;
  std::shared_ptr<engine::TrafficAccount> account;
  if (s_.accounts != nullptr) {
    account = s_.accounts->account(req.user);
    if (account->quota_exhausted()) {  // not a credential failure: no lockout strike
      // Reached with no session to end (a reload lowered the quota): announced here.
      s_.events->quota_reached(req.user, *account);
      ctx.reason = "data quota used up (qeli usage --reset " + req.user + ")";
      return false;
    }
  }
  auto s = s_.sessions->admit(ar);
  if (!s.ok()) {
    ctx.reason = to_string(s.error());
    return false;
  }
  ctx.session = *s;
  ctx.subnet_claims = &s_.sessions->claims();
  ctx.session->set_credential(ctx.device);
  ctx.session->account = std::move(account);
  ctx.session->inbox.set_account(ctx.session->account.get());
  return true;
}

}  // namespace qeli::server
