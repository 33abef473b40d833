// Fuzzes argon2id_is_phc(), the parser users files go through, against an independent
// oracle: a std::regex of the PHC grammar plus the documented bounds. Any disagreement
// (or a crash) is a bug. argon2id_verify() is not called: an accepted string may ask for
// up to 2 GiB and seconds of work, which is its documented contract, not a fuzz finding.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <regex>
#include <string>
#include <string_view>

#include "crypto/argon2id.h"

namespace {

std::size_t b64_decoded(std::size_t chars) {
  return chars / 4 * 3 + (chars % 4 == 0 ? 0 : chars % 4 - 1);
}

bool oracle(const std::string& s) {
  static const std::regex kPhc(
      R"(\$argon2id\$v=19\$m=(0|[1-9][0-9]{0,9}),t=(0|[1-9][0-9]{0,9}),p=(0|[1-9][0-9]{0,9}))"
      R"(\$([A-Za-z0-9+/]*)\$([A-Za-z0-9+/]*))");
  std::smatch m;
  if (!std::regex_match(s, m, kPhc)) return false;
  const unsigned long long mem = std::stoull(m[1].str());
  const unsigned long long t = std::stoull(m[2].str());
  const unsigned long long p = std::stoull(m[3].str());
  const std::size_t salt = m[4].length();
  const std::size_t hash = m[5].length();
  using namespace qeli::crypto;
  if (mem > 0xffffffffULL || t > 0xffffffffULL || p > 0xffffffffULL) return false;
  if (p < 1 || p > kArgon2MaxParallelism || t < 1 || t > kArgon2MaxIterations) return false;
  if (mem < 8 * p || mem > kArgon2MaxMemoryKiB || mem * t > kArgon2MaxCostKiBPasses) return false;
  if (salt % 4 == 1 || hash % 4 == 1) return false;
  return b64_decoded(salt) >= 8 && b64_decoded(salt) <= 64 && b64_decoded(hash) >= 16 &&
         b64_decoded(hash) <= 64;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 512) return 0;  // longer than any acceptable string; keeps the regex cheap
  const std::string s(reinterpret_cast<const char*>(data), size);
  const bool got = qeli::crypto::argon2id_is_phc(s);
  if (got != oracle(s)) std::abort();
  return 0;
}
