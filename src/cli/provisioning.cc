#include "cli/provisioning.h"

#include <istream>
#include <ostream>

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <filesystem>
#include <ostream>

#include "crypto/random.h"

namespace qeli::cli {

std::optional<config::ServerConfig> load_server_for_provisioning(const std::string& path,
                                                                 Context& ctx,
                                                                 bool create_users_file) {
  auto load = config::load_server_config(path);
  if (!load.ok() && create_users_file) {
    const std::string users = load.config.users_file_path();
    std::error_code ec;
    if (!users.empty() && !std::filesystem::exists(users, ec)) {
      // O_EXCL: never truncate a file that appeared meanwhile.
      const int fd = ::open(users.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
      if (fd >= 0) {
        ::close(fd);
        ctx.err << "created the empty users file " << users << " (mode 0600)\n";
        load = config::load_server_config(path);
      }
    }
  }
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

std::optional<std::string> choose_password(const std::string& given, bool from_stdin, Context& ctx,
                                           bool& generated) {
  generated = given.empty() && !from_stdin;
  if (!given.empty()) {
    ctx.err << "note: a password on the command line is visible to other local users; "
               "--password-stdin keeps it out of the process list\n";
    return given;
  }
  if (generated) return generate_password(ctx.rng);
  std::string password;
  std::getline(ctx.in, password);
  if (!password.empty() && password.back() == '\r') password.pop_back();
  if (password.empty()) {
    ctx.err << "--password-stdin: no password on standard input\n";
    return std::nullopt;
  }
  return password;
}

std::string identity_dir_for(const std::string& flag, const config::ServerConfig& cfg) {
  return flag.empty() ? cfg.identity_dir_path() : flag;
}

}  // namespace qeli::cli
