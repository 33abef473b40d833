// ConfigStore: the server config file as the control API sees it (config-get,
// config-validate, config-save, config-history, config-version).
//
// * validate() is check-config's validation over text (config::load_server_config_text,
//   the same code start-up and a reload run) plus privileged_keys.h: an edit from the
//   socket may not touch hooks or file paths.
// * save() refuses a lost update (the caller's base_sha256 is not the file's), refuses
//   what validate() refuses, copies the current file into the history directory
//   (0700, or 0750 with the config's group when the file steward writes it; newest kMaxVersions
//   kept) and replaces the file atomically (write, fsync, rename, fsync the directory), keeping its
//   mode and owner.
//
// Thread-safe (one mutex around file operations).
#pragma once

#include <mutex>
#include <string>

#include "base/result.h"
#include "config/file_replacer.h"
#include "config/finding.h"
#include "control/api.h"

namespace qeli::server {

class ConfigStore {
 public:
  static constexpr std::size_t kMaxVersions = 100;
  /// `history_dir` empty = "<dir of config_path>/history". `via`: who writes the files
  /// (the server's file steward after a privilege drop); null = this process.
  explicit ConfigStore(std::string config_path, std::string history_dir = {},
                       config::FileReplacer* via = nullptr);
  const std::string& history_dir() const { return history_dir_; }

  const std::string& path() const { return path_; }
  /// The file's text with its secrets hidden (server/config_secrets.h) and its SHA-256.
  Result<control::ConfigText, control::ControlError> read() const;
  control::ValidationResult validate(const std::string& text) const;
  /// On success the new file is in place; the caller reloads.
  Result<control::ConfigSaved, control::ControlError> save(const control::SaveConfig& req);
  control::ConfigHistory history() const;
  Result<control::ConfigText, control::ControlError> version(const std::string& id) const;

 private:
  /// `text` with the secrets the file has put back where it says kHiddenSecret.
  std::string with_secrets(const std::string& text) const;

  std::string path_;
  std::string history_dir_;
  config::FileReplacer* via_ = nullptr;
  mutable std::mutex mu_;
};

/// A history version id: "20261201T223500Z-<8 hex>" (25 characters).
bool is_config_version_id(std::string_view id);

/// Hex SHA-256 of `text`.
std::string sha256_hex(std::string_view text);

/// A config::Findings list in the control API's shape.
std::vector<control::ConfigFinding> to_api_findings(const config::Findings& f);

}  // namespace qeli::server
