#include "cli/client_settings.h"

#include <sys/stat.h>

#include <fstream>
#include <istream>
#include <sstream>

#include "config/link.h"

namespace qeli::cli {
namespace {

// The first line that is neither empty nor a # comment.
std::optional<std::string> first_link_line(std::istream& in) {
  std::string line;
  while (std::getline(in, line)) {
    const std::string_view t = config::trim_link_text(line);
    if (!t.empty() && t.front() != '#') return std::string(t);
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> readable_secret_warning(const std::string& path, const char* what) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  if ((st.st_mode & (S_IRGRP | S_IROTH)) == 0) return std::nullopt;
  return path + " holds " + what + " and is readable by " +
         ((st.st_mode & S_IROTH) != 0 ? "every user" : "its group") + ": chmod 600 " + path;
}

ClientSettings load_client_settings(const ClientSource& src, std::istream& in) {
  ClientSettings out;
  std::optional<std::string> link_text;
  if (!src.link_file.empty()) {
    if (!src.link_argument.empty()) {
      out.error = "give the link once: as an argument, on standard input (-) or with --link-file";
      return out;
    }
    std::ifstream f(src.link_file);
    if (!f) {
      out.error = "--link-file " + src.link_file + ": cannot read it";
      return out;
    }
    link_text = first_link_line(f);
    if (!link_text) {
      out.error = "--link-file " + src.link_file + ": no qeli:// link in it";
      return out;
    }
    if (auto w = readable_secret_warning(src.link_file, "a link with a password")) {
      out.warnings.push_back(*w);
    }
  } else if (src.link_argument == "-") {
    link_text = first_link_line(in);
    if (!link_text) {
      out.error = "no qeli:// link on standard input";
      return out;
    }
  } else if (!src.link_argument.empty()) {
    link_text = src.link_argument;
  }

  std::optional<config::ShareLink> link;
  if (link_text) {
    auto parsed = config::parse_link(*link_text);
    if (!parsed.ok()) {
      out.error = "bad link: " + parsed.error();
      return out;
    }
    link = std::move(*parsed);
    if (!src.link_argument.empty() && src.link_argument != "-" && !link->pass.empty()) {
      out.warnings.push_back(
          "the link was given as an argument: its password is visible to every local user "
          "in `ps` and stays in the shell history; prefer `qeli client --link-file FILE` (mode "
          "600) or `qeli client - < FILE`");
    }
  }

  if (link && !src.config_given) {
    out.load = config::client_config_from_link(*link);
    return out;
  }
  config::ClientLoadOptions lo;
  lo.server_from_link = link.has_value();
  out.load = config::load_client_config(src.config_path, lo);
  if (out.load.ok()) {
    const auto& c = out.load.config;
    if (!c.pass.empty() || !c.obfs_key.empty()) {
      if (auto w = readable_secret_warning(src.config_path, "a password or key")) {
        out.warnings.push_back(*w);
      }
    }
  }
  if (link) {
    for (auto& note : config::apply_link(out.load, *link)) {
      out.warnings.push_back(note + " (" + src.config_path + ")");
    }
  }
  return out;
}

}  // namespace qeli::cli
