#include "cli/provisioning.h"

#include <array>
#include <ostream>

#include "crypto/random.h"

namespace qeli::cli {

std::optional<config::ServerConfig> load_server_for_provisioning(const std::string& path,
                                                                 Context& ctx) {
  auto load = config::load_server_config(path);
  if (!load.ok()) {
    for (const auto& f : load.findings.all()) {
      if (f.severity == config::Severity::kError) ctx.err << f.to_string() << "\n";
    }
    ctx.err << path << ": refusing to continue with an invalid config\n";
    return std::nullopt;
  }
  return std::move(load.config);
}

std::string generate_password(crypto::Rng& rng) {
  // 32 symbols, so `byte & 31` is uniform; no 0/O, 1/l/I.
  static constexpr char kAlphabet[] = "abcdefghijkmnpqrstuvwxyz23456789";
  static_assert(sizeof(kAlphabet) - 1 == 32);
  std::array<std::uint8_t, 20> bytes{};
  rng.fill(bytes);
  std::string out;
  for (const auto b : bytes) out += kAlphabet[b & 31];
  return out;
}

}  // namespace qeli::cli
