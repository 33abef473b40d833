// Loading test vectors: the reference implementation's conformance JSON (directory from
// QELI_CONFORMANCE_DIR, default ../shared/fixtures/qeli-conformance) and our own
// vectors in tests/vectors. A missing file or case is a test FAILURE, never a skip.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "base/bytes.h"

namespace qeli::test {

/// The conformance directory in use (QELI_CONFORMANCE_DIR or the default).
std::string conformance_dir();

/// Loads `<conformance_dir>/<file>`; fails the current test (ADD_FAILURE) and returns
/// null JSON if the file is missing or malformed.
nlohmann::json load_conformance(const std::string& file);

/// Loads `tests/vectors/<file>` with the same contract.
nlohmann::json load_vectors(const std::string& file);

/// The array `j[key]`, failing the test if it is absent, not an array, or has fewer than
/// `min_cases` elements.
std::vector<nlohmann::json> cases(const nlohmann::json& j, const std::string& key,
                                  std::size_t min_cases = 1);

/// Decodes a hex string field; fails the test on bad hex.
Bytes hex_field(const nlohmann::json& j, const std::string& key);

/// Requires that the cases carrying these ids are all present in `j[key]`.
void require_ids(const nlohmann::json& j, const std::string& key,
                 const std::vector<std::string>& ids);

/// The kind of expectation a case carries, read from its `expect` object: kReject
/// (`reject: true`), kIncomplete (`incomplete: true`: fed in full, the input must neither
/// fail nor complete), or kAccept (an expected output). The reference's files may grow:
/// tests count what each kind checked instead of comparing against fixed totals.
enum class Expect { kAccept, kReject, kIncomplete, kUnknown };
Expect expectation(const nlohmann::json& c);
const char* to_string(Expect e);

/// Cases checked per kind of expectation, for one vector set.
struct Tally {
  int accept = 0, reject = 0, incomplete = 0;
  int total() const { return accept + reject + incomplete; }
  void count(Expect e);
};

/// Returns a copy of `j` with `extra` appended to the array `j[key]` (the superset tests:
/// our tests must accept any superset of the reference's vectors).
nlohmann::json with_extra_cases(nlohmann::json j, const std::string& key,
                                const std::vector<nlohmann::json>& extra);

}  // namespace qeli::test
