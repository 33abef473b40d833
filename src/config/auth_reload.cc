#include "config/auth_reload.h"

namespace qeli::config {

std::vector<std::string> auth_keys_needing_restart(const AuthConfig& running,
                                                   const AuthConfig& next) {
  std::vector<std::string> out;
  auto note = [&out](bool differs, const char* key) {
    if (differs) out.emplace_back(key);
  };
  const BruteForceConfig& a = running.brute_force;
  const BruteForceConfig& b = next.brute_force;
  note(running.identity_dir != next.identity_dir, "identity_dir");
  note(running.require_client_key_proof != next.require_client_key_proof,
       "require_client_key_proof");
  note(running.bind_static_to_session != next.bind_static_to_session, "bind_static_to_session");
  note(a.enabled != b.enabled, "brute_force.enabled");
  note(a.max_attempts != b.max_attempts, "brute_force.max_attempts");
  note(a.window != b.window, "brute_force.window_secs");
  note(a.lockout != b.lockout, "brute_force.lockout_secs");
  note(a.address_max_attempts != b.address_max_attempts, "brute_force.address_max_attempts");
  note(a.per_address_only != b.per_address_only, "brute_force.lockout_key");
  return out;
}

}  // namespace qeli::config
