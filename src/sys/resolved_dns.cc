#include "sys/resolved_dns.h"

#include <spawn.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "sys/file_util.h"
#include "sys/names.h"

extern char** environ;

namespace qeli::sys {

namespace {

bool socket_accepts(const std::string& path) {
  sockaddr_un sa{};
  if (path.size() >= sizeof sa.sun_path) return false;
  sa.sun_family = AF_UNIX;
  std::memcpy(sa.sun_path, path.c_str(), path.size() + 1);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  const bool ok = ::connect(fd, reinterpret_cast<const sockaddr*>(&sa), sizeof sa) == 0;
  ::close(fd);
  return ok;
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

HostStatus run_argv(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (const int rc = ::posix_spawnp(&pid, argv[0], nullptr, nullptr, argv.data(), environ);
      rc != 0) {
    return host_fail(rc == ENOENT ? HostErrc::kNotFound : HostErrc::kIo,
                     "spawn " + args[0] + ": " + std::strerror(rc));
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR)
      return host_fail(HostErrc::kIo, "waitpid: " + std::string(std::strerror(errno)));
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::string cmd;
    for (const std::string& a : args) cmd += (cmd.empty() ? "" : " ") + a;
    return host_fail(HostErrc::kIo, "'" + cmd + "' failed (status " + std::to_string(status) + ")");
  }
  return {};
}

}  // namespace

ResolvedStatus probe_resolved(const ResolvedProbePaths& paths) {
  ResolvedStatus s;
  s.running = socket_accepts(paths.runtime_dir + "/io.systemd.Resolve");
  auto st = inspect_path(paths.resolv_conf);
  if (!st) return s;
  if (st->kind == PathState::Kind::kSymlink) {
    if (auto target = read_link(paths.resolv_conf)) {
      s.resolv_conf_is_stub = ends_with(*target, "systemd/resolve/stub-resolv.conf") ||
                              ends_with(*target, "systemd/resolve/resolv.conf") ||
                              ends_with(*target, "lib/systemd/resolv.conf");
    }
  } else if (st->kind == PathState::Kind::kFile) {
    if (auto text = read_small_file(paths.resolv_conf, 64 * 1024)) {
      s.resolv_conf_is_stub = text->find("nameserver 127.0.0.53") != std::string::npos;
    }
  }
  return s;
}

DnsBackend choose_dns_backend(const ResolvedStatus& status) {
  return status.running && status.resolv_conf_is_stub ? DnsBackend::kResolved
                                                      : DnsBackend::kResolvConf;
}

HostResult<std::vector<std::vector<std::string>>> resolvectl_apply_commands(const std::string& dev,
                                                                            const DnsSettings& dns,
                                                                            bool default_route) {
  if (!is_valid_ifname(dev))
    return host_fail(HostErrc::kInvalidArgument, "bad interface '" + dev + "'");
  // render_resolv_conf() validates servers and search domains the same way.
  if (auto check = render_resolv_conf(dns, dev); !check) return fail(check.error());
  std::vector<std::vector<std::string>> cmds;
  std::vector<std::string> set_dns = {"dns", dev};
  for (const IpAddress& a : dns.servers) set_dns.push_back(a.to_string());
  cmds.push_back(std::move(set_dns));
  std::vector<std::string> domains = {"domain", dev};
  if (default_route) domains.emplace_back("~.");  // route every query to this link
  for (const std::string& d : dns.search) domains.push_back(d);
  cmds.push_back(std::move(domains));
  cmds.push_back({"default-route", dev, default_route ? "yes" : "no"});
  return cmds;
}

ResolvectlLinkDns::ResolvectlLinkDns(std::string resolvectl) : exe_(std::move(resolvectl)) {}

HostStatus ResolvectlLinkDns::apply(const std::string& dev, const DnsSettings& dns,
                                    bool default_route) {
  auto cmds = resolvectl_apply_commands(dev, dns, default_route);
  if (!cmds) return fail(cmds.error());
  for (auto& c : *cmds) {
    c.insert(c.begin(), exe_);
    if (auto r = run_argv(c); !r) return r;
  }
  return {};
}

HostStatus ResolvectlLinkDns::revert(const std::string& dev) {
  if (!is_valid_ifname(dev))
    return host_fail(HostErrc::kInvalidArgument, "bad interface '" + dev + "'");
  return run_argv({exe_, "revert", dev});
}

ResolvConfLinkDns::ResolvConfLinkDns(ResolvConfPaths paths) : rc_(std::move(paths)) {}

HostStatus ResolvConfLinkDns::apply(const std::string& dev, const DnsSettings& dns, bool) {
  return rc_.take_over(dns, dev);
}

HostStatus ResolvConfLinkDns::revert(const std::string&) {
  auto r = rc_.restore();
  if (!r) return fail(r.error());
  return {};
}

}  // namespace qeli::sys
