#include "support/conformance.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <set>

namespace qeli::test {
namespace {
nlohmann::json load_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    ADD_FAILURE() << "test vector file missing: " << path;
    return nullptr;
  }
  try {
    return nlohmann::json::parse(in);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "test vector file malformed: " << path << ": " << e.what();
    return nullptr;
  }
}
}  // namespace

std::string conformance_dir() {
  if (const char* env = std::getenv("QELI_CONFORMANCE_DIR"); env != nullptr && *env != '\0') {
    return env;
  }
  return QELI_DEFAULT_CONFORMANCE_DIR;
}

nlohmann::json load_conformance(const std::string& file) {
  return load_file(conformance_dir() + "/" + file);
}

nlohmann::json load_vectors(const std::string& file) {
  return load_file(std::string(QELI_TEST_VECTORS_DIR) + "/" + file);
}

std::vector<nlohmann::json> cases(const nlohmann::json& j, const std::string& key,
                                  std::size_t min_cases) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_array()) {
    ADD_FAILURE() << "vector set has no array '" << key << "'";
    return {};
  }
  std::vector<nlohmann::json> out(j[key].begin(), j[key].end());
  if (out.size() < min_cases) {
    ADD_FAILURE() << "vector set '" << key << "' has " << out.size() << " cases, expected at least "
                  << min_cases;
  }
  return out;
}

Bytes hex_field(const nlohmann::json& j, const std::string& key) {
  if (!j.contains(key) || !j[key].is_string()) {
    ADD_FAILURE() << "missing hex field '" << key << "'";
    return {};
  }
  auto b = from_hex(j[key].get<std::string>());
  if (!b) {
    ADD_FAILURE() << "bad hex in field '" << key << "'";
    return {};
  }
  return *b;
}

void require_ids(const nlohmann::json& j, const std::string& key,
                 const std::vector<std::string>& ids) {
  std::set<std::string> have;
  for (const auto& c : cases(j, key, 0)) {
    if (c.contains("id")) have.insert(c["id"].get<std::string>());
  }
  for (const auto& id : ids) {
    EXPECT_TRUE(have.count(id)) << "conformance case missing: " << id;
  }
}

Expect expectation(const nlohmann::json& c) {
  if (!c.contains("expect") || !c["expect"].is_object()) return Expect::kUnknown;
  const auto& e = c["expect"];
  auto flag = [&](const char* k) { return e.contains(k) && e[k].is_boolean() && e[k].get<bool>(); };
  if (flag("reject")) return Expect::kReject;
  if (flag("incomplete")) return Expect::kIncomplete;
  return e.empty() ? Expect::kUnknown : Expect::kAccept;
}

const char* to_string(Expect e) {
  switch (e) {
    case Expect::kAccept: return "accept";
    case Expect::kReject: return "reject";
    case Expect::kIncomplete: return "incomplete";
    case Expect::kUnknown: return "unknown";
  }
  return "?";
}

void Tally::count(Expect e) {
  switch (e) {
    case Expect::kAccept: ++accept; break;
    case Expect::kReject: ++reject; break;
    case Expect::kIncomplete: ++incomplete; break;
    case Expect::kUnknown:
      ADD_FAILURE() << "a case with an expectation this test cannot check";
      break;
  }
}

nlohmann::json with_extra_cases(nlohmann::json j, const std::string& key,
                                const std::vector<nlohmann::json>& extra) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_array()) {
    ADD_FAILURE() << "vector set has no array '" << key << "'";
    return j;
  }
  for (const auto& c : extra) j[key].push_back(c);
  return j;
}

}  // namespace qeli::test
