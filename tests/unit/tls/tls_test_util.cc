#include "tls_test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "support/conformance.h"

namespace qeli::tls::test {

Bytes hex(std::string_view s) {
  auto b = from_hex(s);
  EXPECT_TRUE(b.has_value()) << s;
  return b.value_or(Bytes{});
}

Secret secret_hex(std::string_view s) { return Secret(hex(s)); }

const nlohmann::json& rfc8448() {
  static const nlohmann::json j = qeli::test::load_vectors("rfc8448.json");
  return j;
}

Bytes rfc8448_bytes(const std::string& key) { return hex(rfc8448().at(key).get<std::string>()); }

std::vector<Capture> captures(const std::string& prefix) {
  std::vector<Capture> out;
  const std::filesystem::path dir(QELI_CHROME_FIXTURES_DIR);
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (e.path().extension() != ".hex" || name.rfind(prefix, 0) != 0) continue;
    std::ifstream in(e.path());
    std::string line;
    std::getline(in, line);
    out.push_back({name, hex(line)});
  }
  std::sort(out.begin(), out.end(),
            [](const Capture& a, const Capture& b) { return a.file < b.file; });
  EXPECT_FALSE(out.empty()) << "no " << prefix << "*.hex in " << dir;
  return out;
}

const nlohmann::json& fingerprints() {
  static const nlohmann::json j = [] {
    std::ifstream in(std::filesystem::path(QELI_CHROME_FIXTURES_DIR) / "fingerprints.json");
    nlohmann::json v = nlohmann::json::parse(in, nullptr, false);
    EXPECT_FALSE(v.is_discarded()) << "fingerprints.json does not parse";
    return v;
  }();
  return j;
}

}  // namespace qeli::tls::test
