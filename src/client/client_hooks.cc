#include "client/client_hooks.h"

#include <sys/stat.h>

#include <spdlog/spdlog.h>

#include <fstream>

namespace qeli::client {
namespace {

std::string first_line(std::string_view s) {
  std::string line(s.substr(0, s.find('\n')));
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return line;
}

}  // namespace

std::string unsafe_command_source(const config::ClientConfig& c) {
  if (c.file.empty() || c.file == "<link>") return "";
  struct stat st {};
  if (::stat(c.file.c_str(), &st) != 0) return c.file + ": cannot stat";
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    return c.file +
           " is writable by its group or others: commands (post_up, post_down, "
           "password_command) are only run from a file only its owner may write "
           "(chmod go-w)";
  }
  return "";
}

PasswordResult read_client_password(const config::ClientConfig& c) {
  if (!c.password_file.empty()) {
    std::ifstream in(c.password_file, std::ios::binary);
    if (!in) return {"", "password_file " + c.password_file + ": cannot read it"};
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string pw = first_line(text);
    if (pw.empty()) return {"", "password_file " + c.password_file + ": its first line is empty"};
    return {pw, ""};
  }
  if (!c.password_command.empty()) {
    if (auto why = unsafe_command_source(c); !why.empty()) return {"", why};
    const auto r = sys::run_hook(c.password_command, {}, kClientHookTimeout,
                                 /*separate_stderr=*/true);
    if (!r.ok()) return {"", "password_command failed: " + r.describe()};
    const std::string pw = first_line(r.output);
    if (pw.empty()) return {"", "password_command printed no password"};
    return {pw, ""};
  }
  return {c.pass, ""};
}

bool run_client_hook(std::string_view which, const std::string& command, const sys::HookEnv& env) {
  if (command.empty()) return true;
  spdlog::info("{}: running `{}`", which, command);
  const auto r = sys::run_hook(command, env, kClientHookTimeout);
  std::string_view out = r.output;
  while (!out.empty()) {
    const auto nl = out.find('\n');
    if (nl != 0) spdlog::info("{}: {}", which, out.substr(0, nl));
    out = nl == std::string_view::npos ? std::string_view{} : out.substr(nl + 1);
  }
  if (r.ok()) return true;
  spdlog::error("{} failed: {}", which, r.describe());
  return false;
}

}  // namespace qeli::client
