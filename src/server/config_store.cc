#include "server/config_store.h"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "base/bytes.h"
#include "config/server_config.h"
#include "crypto/random.h"
#include "crypto/sha256.h"
#include "server/config_secrets.h"
#include "server/privileged_keys.h"
#include "sys/file_util.h"

namespace qeli::server {
namespace {

using control::ControlError;
using control::ErrorCode;

const char* severity_name(config::Severity s) {
  switch (s) {
    case config::Severity::kError: return "error";
    case config::Severity::kUnknownKey: return "unknown-key";
    case config::Severity::kWarning: return "warning";
  }
  return "error";
}

}  // namespace

// History ids are "YYYYMMDDTHHMMSSZ-xxxxxxxx": letters, digits, 'T', 'Z', '-'.
bool is_config_version_id(std::string_view id) {
  if (id.size() != 25) return false;
  return std::all_of(id.begin(), id.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || c == 'T' || c == 'Z' || c == '-';
  });
}

namespace {

std::string new_id(std::int64_t unix_secs) {
  const std::time_t t = unix_secs;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y%m%dT%H%M%SZ", &tm);
  std::array<std::uint8_t, 4> r{};
  crypto::system_rng().fill(r);
  return std::string(buf) + "-" + to_hex(r);
}

}  // namespace

std::string sha256_hex(std::string_view text) {
  const auto d =
      crypto::sha256(std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
  return to_hex(d);
}

std::vector<control::ConfigFinding> to_api_findings(const config::Findings& f) {
  std::vector<control::ConfigFinding> out;
  for (const auto& x : f.all()) {
    out.push_back(
        {severity_name(x.severity), x.file, x.section, x.key, x.line, x.message, x.to_string()});
  }
  return out;
}

ConfigStore::ConfigStore(std::string config_path, std::string history_dir,
                         config::FileReplacer* via)
    : path_(std::move(config_path)), history_dir_(std::move(history_dir)), via_(via) {
  if (history_dir_.empty()) history_dir_ = sys::parent_dir(path_) + "/history";
}

Result<control::ConfigText, ControlError> ConfigStore::read() const {
  std::lock_guard lock(mu_);
  auto text = sys::read_small_file(path_, config::kMaxFileBytes);
  if (!text.ok()) return fail(ControlError{ErrorCode::kInternal, text.error().detail});
  // The hash is the file's (the base a save names); the text hides its secrets.
  return control::ConfigText{path_, hide_secrets(*text), sha256_hex(*text)};
}

std::string ConfigStore::with_secrets(const std::string& text) const {
  std::lock_guard lock(mu_);
  auto cur = sys::read_small_file(path_, config::kMaxFileBytes);
  return cur.ok() ? restore_secrets(text, *cur) : text;
}

control::ValidationResult ConfigStore::validate(const std::string& edited) const {
  control::ValidationResult out;
  const std::string text = with_secrets(edited);
  const config::ServerLoad load = config::load_server_config_text(text, path_);
  config::Findings findings = load.findings;
  // Against the file as it is now: what the edit changes among the privileged keys.
  config::Findings ignore;
  std::string current;
  {
    std::lock_guard lock(mu_);
    auto cur = sys::read_small_file(path_, config::kMaxFileBytes);
    if (cur.ok()) current = *cur;
  }
  const auto before = config::parse_ini(current, path_, ignore);
  const auto after = config::parse_ini(text, path_, ignore);
  for (auto& f : privileged_changes(before, after)) findings.add(std::move(f));
  out.ok = !findings.has_blocking();
  out.findings = to_api_findings(findings);
  return out;
}

Result<control::ConfigSaved, ControlError> ConfigStore::save(const control::SaveConfig& edited) {
  control::SaveConfig req = edited;
  req.text = with_secrets(edited.text);
  control::ValidationResult v = validate(req.text);
  if (!v.ok) {
    std::string first;
    for (const auto& f : v.findings) {
      if (f.severity != "warning") {
        first = f.text;
        break;
      }
    }
    return fail(ControlError{ErrorCode::kInvalid, "the config was not saved: " + first});
  }
  std::lock_guard lock(mu_);
  auto cur = sys::read_small_file(path_, config::kMaxFileBytes);
  if (!cur.ok()) return fail(ControlError{ErrorCode::kInternal, cur.error().detail});
  if (sha256_hex(*cur) != req.base_sha256) {
    return fail(ControlError{ErrorCode::kConflict,
                             "the config changed since it was read; reload it and edit again"});
  }
  control::ConfigSaved out;
  out.sha256 = sha256_hex(req.text);
  out.findings = v.findings;
  if (*cur == req.text) return out;  // nothing to do
  struct stat st {};
  ::stat(path_.c_str(), &st);
  const std::int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
  // Through the steward (a dropped server) or here; the steward makes the directory.
  auto write = [&](const std::string& path, const std::string& content, mode_t mode,
                   std::optional<std::pair<uid_t, gid_t>> owner) -> Status<std::string> {
    if (via_ != nullptr) return via_->replace(path, content);
    if (auto w = sys::write_file_atomic(path, content, mode, owner); !w.ok()) {
      return fail(w.error().detail);
    }
    return {};
  };
  if (via_ == nullptr) {
    if (auto mk = sys::make_dirs(history_dir_, 0700); !mk.ok()) {
      return fail(ControlError{ErrorCode::kInternal, mk.error().detail});
    }
  }
  out.history_id = new_id(now);
  const nlohmann::json meta = {{"id", out.history_id},
                               {"unix_secs", now},
                               {"actor", req.actor.substr(0, 128)},
                               {"sha256", sha256_hex(*cur)},
                               {"size", cur->size()}};
  const std::string base = history_dir_ + "/" + out.history_id;
  for (const auto& [file, content] :
       {std::pair{base + ".conf", *cur}, std::pair{base + ".json", meta.dump() + "\n"}}) {
    if (auto w = write(file, content, 0600, std::nullopt); !w.ok()) {
      return fail(ControlError{ErrorCode::kInternal, w.error()});
    }
  }
  const mode_t mode = st.st_mode != 0 ? (st.st_mode & 07777) : 0600;
  if (auto w = write(path_, req.text, mode, std::make_pair(st.st_uid, st.st_gid)); !w.ok()) {
    return fail(ControlError{ErrorCode::kInternal, w.error()});
  }
  // Keep the newest kMaxVersions.
  std::vector<std::string> ids;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(history_dir_, ec)) {
    const std::string n = e.path().filename().string();
    if (n.size() == 30 && n.ends_with(".conf")) ids.push_back(n.substr(0, 25));
  }
  std::sort(ids.begin(), ids.end());
  for (std::size_t i = 0; i + kMaxVersions < ids.size(); ++i) {
    for (const char* ext : {".conf", ".json"}) {
      const std::string old = history_dir_ + "/" + ids[i] + ext;
      if (via_ != nullptr) {
        (void)via_->remove(old);
      } else {
        std::filesystem::remove(old, ec);
      }
    }
  }
  return out;
}

control::ConfigHistory ConfigStore::history() const {
  std::lock_guard lock(mu_);
  control::ConfigHistory out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(history_dir_, ec)) {
    const std::string n = e.path().filename().string();
    if (!n.ends_with(".json") || !is_config_version_id(n.substr(0, n.size() - 5))) continue;
    auto text = sys::read_small_file(e.path().string(), 64 * 1024);
    if (!text.ok()) continue;
    const auto j = nlohmann::json::parse(*text, nullptr, false);
    if (!j.is_object()) continue;
    control::ConfigVersionInfo v;
    v.id = n.substr(0, n.size() - 5);
    v.unix_secs = j.value("unix_secs", std::int64_t{0});
    v.actor = j.value("actor", std::string());
    v.sha256 = j.value("sha256", std::string());
    v.size = j.value("size", std::uint64_t{0});
    out.versions.push_back(std::move(v));
  }
  std::sort(out.versions.begin(), out.versions.end(),
            [](const auto& a, const auto& b) { return a.id > b.id; });
  return out;
}

Result<control::ConfigText, ControlError> ConfigStore::version(const std::string& id) const {
  if (!is_config_version_id(id))
    return fail(ControlError{ErrorCode::kNotFound, "no such config version"});
  std::lock_guard lock(mu_);
  auto text = sys::read_small_file(history_dir_ + "/" + id + ".conf", config::kMaxFileBytes);
  if (!text.ok()) return fail(ControlError{ErrorCode::kNotFound, "no such config version"});
  return control::ConfigText{id, hide_secrets(*text), sha256_hex(*text)};
}

}  // namespace qeli::server
