// A server config around one section under test ([logging], [metrics], …): a users file,
// the section, then one profile. Shared by the section tests.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "config/server_config.h"
#include "temp_dir.h"

namespace qeli::config {

class ServerSectionTest : public ::testing::Test {
 protected:
  /// Loads `[section]` + `body` + `[profile:p]` + `profile` from tmp_/server.conf.
  ServerLoad server_with(const std::string& section, const std::string& body,
                         const std::string& profile = "") {
    tmp_.write("users.conf", "");
    return load_server_config_text(
        "[auth]\nusers_file = users.conf\n[" + section + "]\n" + body + "[profile:p]\n" + profile,
        tmp_.file("server.conf"));
  }
  test::TempDir tmp_;
};

/// Every finding, one line each (for failure messages).
inline std::string dump(const Findings& f) {
  std::string s;
  for (const auto& i : f.all()) s += i.to_string() + "\n";
  return s;
}

}  // namespace qeli::config
