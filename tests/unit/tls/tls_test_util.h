// Helpers shared by the src/tls tests: hex, the RFC 8448 vectors, the Chromium captures.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "base/bytes.h"
#include "tls/secret.h"

namespace qeli::tls::test {

Bytes hex(std::string_view s);
Secret secret_hex(std::string_view s);

/// tests/vectors/rfc8448.json.
const nlohmann::json& rfc8448();
Bytes rfc8448_bytes(const std::string& key);

struct Capture {
  std::string file;
  Bytes record;
};
/// Every *.hex capture in shared/fixtures/chrome-clienthello whose name starts with
/// `prefix` (sorted by name). Fails the test when none is found.
std::vector<Capture> captures(const std::string& prefix);
/// fingerprints.json of that folder.
const nlohmann::json& fingerprints();

}  // namespace qeli::tls::test
