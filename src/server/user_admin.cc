#include "server/user_admin.h"

#include <array>

#include <spdlog/spdlog.h>

#include "base/bytes.h"
#include "config/device_issue.h"
#include "config/link.h"
#include "config/link_plan.h"
#include "config/users_file.h"
#include "config/values.h"
#include "crypto/argon2id.h"
#include "server/user_edit.h"
#include "server/user_info.h"

namespace qeli::server {
namespace {

using control::ControlError;
using control::ErrorCode;

Unexpected<ControlError> refuse(ErrorCode c, std::string why) {
  return fail(ControlError{c, std::move(why)});
}

ErrorCode code_of(config::UsersFileError e) {
  switch (e) {
    case config::UsersFileError::kBadName:
    case config::UsersFileError::kBadHash:
    case config::UsersFileError::kInvalid: return ErrorCode::kInvalid;
    case config::UsersFileError::kExists: return ErrorCode::kConflict;
    case config::UsersFileError::kNotFound: return ErrorCode::kNotFound;
    case config::UsersFileError::kIo: break;
  }
  return ErrorCode::kInternal;
}

// The error findings as check-config prints them, "; "-separated (at most a few: the
// words are for a form).
std::string errors_of(const config::Findings& findings, std::size_t most) {
  std::string out;
  std::size_t n = 0;
  for (const auto& f : findings.all()) {
    if (f.severity != config::Severity::kError || n++ == most) continue;
    out += (out.empty() ? "" : "; ") + f.to_string();
  }
  return out;
}

// The config as the file has it now; a config with errors refuses every change (the
// reload after it would refuse it too, and the change would wait unseen).
Result<config::ServerConfig, ControlError> current_config(const std::string& path) {
  auto load = config::load_server_config(path);
  if (!load.ok()) {
    return refuse(ErrorCode::kInvalid, path + " has errors (qeli check-config): " +
                                           errors_of(load.findings, 1) + "; fix it first");
  }
  return std::move(load.config);
}

// The user, when the users file holds them (inline users are edited in server.conf).
Result<const config::UserConfig*, ControlError> file_user(const config::ServerConfig& cfg,
                                                          const std::string& name) {
  const auto* u = cfg.find_user(name);
  if (u == nullptr) return refuse(ErrorCode::kNotFound, "no user '" + name + "'");
  if (u->source_file != cfg.users_file_path()) {
    return refuse(ErrorCode::kInvalid, "user '" + name + "' is defined inline in " +
                                           u->source_file + ": edit it there (the config editor)");
  }
  return u;
}

}  // namespace

UserAdmin::UserAdmin(std::string config_path,
                     const std::vector<std::unique_ptr<ProfileRuntime>>* profiles, Reload reload,
                     crypto::Rng& rng, config::FileReplacer* via)
    : config_path_(std::move(config_path)),
      profiles_(profiles),
      reload_(std::move(reload)),
      rng_(rng),
      via_(via) {}

Result<control::UserChanged, ControlError> UserAdmin::add_user(const control::AddUser& r) {
  std::lock_guard lock(mu_);
  if (!config::is_valid_object_name(r.username)) {
    return refuse(ErrorCode::kInvalid, "user names are 1..64 of letters, digits, - _ . @");
  }
  auto cfg = current_config(config_path_);
  if (!cfg.ok()) return fail(cfg.error());
  if (cfg->find_user(r.username) != nullptr) {
    return refuse(ErrorCode::kConflict, "user '" + r.username + "' exists");
  }
  for (const auto& p : r.profiles) {
    if (cfg->find_profile(p) == nullptr) {
      return refuse(ErrorCode::kInvalid, "no profile '" + p + "' in " + config_path_);
    }
  }
  // A password nobody is told (192 bits): the user's devices log in with their own
  // credentials; `qeli passwd` can set one later.
  std::array<std::uint8_t, 24> secret{};
  rng_.fill(secret);
  const auto hash = crypto::argon2id_hash(to_hex(secret));
  if (!hash) return refuse(ErrorCode::kInternal, "Argon2id hashing failed (out of memory?)");
  const std::string path = cfg->users_file_path();
  config::NewUser nu;
  nu.name = r.username;
  nu.password_hash = *hash;
  nu.profiles = r.profiles;
  nu.max_sessions = r.max_sessions;
  if (auto st = config::append_user(path, nu, via_); !st.ok()) {
    return refuse(code_of(st.error().code), st.error().detail);
  }
  const auto reloaded = reload_();
  return control::UserChanged{r.username, path, reloaded.ok, reloaded.sessions_ended};
}

Result<control::UserChanged, ControlError> UserAdmin::remove_user(const control::RemoveUser& r) {
  return edit_file_user(r.username, [&](const std::string& path, const config::UserConfig&) {
    return config::remove_user(path, r.username, via_);
  });
}

Result<control::UserChanged, ControlError> UserAdmin::edit_user(const control::EditUser& r) {
  return edit_file_user(
      r.username,
      [&](const std::string& path,
          const config::UserConfig& user) -> Status<Error<config::UsersFileError>> {
        auto keys = user_key_lines(r, user_info(user));
        if (!keys.ok()) {
          return fail(Error<config::UsersFileError>{config::UsersFileError::kInvalid,
                                                    keys.error().message});
        }
        // The new file is judged by the loader start-up uses, under the file's lock: what it
        // refuses is refused with its words, and the file stays as it was.
        const auto judge = [&](const std::string& text) -> std::optional<std::string> {
          const auto load = config::load_server_config_with_users(config_path_, text);
          if (load.ok()) return std::nullopt;
          return errors_of(load.findings, 5);
        };
        return config::set_user_keys(path, r.username, *keys, judge, via_);
      });
}

Result<control::DeviceIssued, ControlError> UserAdmin::add_device(const control::AddDevice& r) {
  std::lock_guard lock(mu_);
  auto cfg = current_config(config_path_);
  if (!cfg.ok()) return fail(cfg.error());
  const auto u = file_user(*cfg, r.username);
  if (!u.ok()) return fail(u.error());
  const config::UserConfig& user = **u;
  // Everything the link needs is checked before the file changes.
  std::optional<config::LinkPlan> plan;
  std::string key_hex;
  if (!r.host.empty()) {
    const std::string sid = user.reality_short_ids.empty() ? "" : user.reality_short_ids.front();
    auto planned = config::plan_link(*cfg, user.name, user.profiles, {r.host, r.profile, {}, sid});
    if (!planned.ok()) return refuse(ErrorCode::kInvalid, planned.error());
    for (const auto& p : *profiles_) {
      if (p->name() == planned->profile->name) key_hex = to_hex(p->public_key());
    }
    if (key_hex.empty()) {
      return refuse(ErrorCode::kInvalid, "profile '" + planned->profile->name +
                                             "' is not running (a new or enabled profile needs "
                                             "a restart of the server)");
    }
    plan = std::move(*planned);
  } else if (!r.profile.empty()) {
    return refuse(ErrorCode::kBadRequest, "\"profile\" is for a link: give \"host\" too");
  }
  auto issued = config::issue_device(cfg->users_file_path(), user, r.name, rng_, via_);
  if (!issued.ok()) {
    const auto& e = issued.error();
    const ErrorCode code = e.code == config::DeviceIssueError::kExists    ? ErrorCode::kConflict
                           : e.code == config::DeviceIssueError::kBadName ? ErrorCode::kInvalid
                                                                          : ErrorCode::kInternal;
    return refuse(code, e.detail);
  }
  control::DeviceIssued out;
  out.username = user.name;
  out.id = issued->id;
  out.name = issued->name;
  out.credential = issued->credential;
  if (plan) {
    plan->target.user = user.name;
    plan->target.pass = issued->credential;
    plan->target.server_key_hex = key_hex;
    out.profile = plan->profile->name;
    out.link = config::emit_link(config::link_for_profile(*plan->profile, plan->target));
  }
  out.reloaded = reload_().ok;
  return out;
}

Result<control::UserChanged, ControlError> UserAdmin::revoke_device(
    const control::RevokeDevice& r) {
  return edit_file_user(r.username, [&](const std::string& path, const config::UserConfig&) {
    return config::remove_device(path, r.username, r.id, via_);
  });
}

Result<control::UserChanged, ControlError> UserAdmin::edit_file_user(const std::string& name,
                                                                     const FileEdit& edit) {
  std::lock_guard lock(mu_);
  auto cfg = current_config(config_path_);
  if (!cfg.ok()) return fail(cfg.error());
  const auto u = file_user(*cfg, name);
  if (!u.ok()) return fail(u.error());
  const std::string path = cfg->users_file_path();
  if (auto st = edit(path, **u); !st.ok()) {
    return refuse(code_of(st.error().code), st.error().detail);
  }
  const auto reloaded = reload_();
  return control::UserChanged{name, path, reloaded.ok, reloaded.sessions_ended};
}

}  // namespace qeli::server
