// Network namespaces for the privileged sys/ tests. Each Netns is created with
// `ip netns add` under a name unique to this process and deleted in the destructor, so
// a test never touches the host's own routes or firewall: code under test runs on a
// thread that has setns()ed into the namespace (run()), and shell checks go through
// `ip netns exec` (sh()).
#pragma once

#include <fcntl.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>

namespace qeli::sys::test {

struct CmdResult {
  int status = -1;  ///< exit code (0 = success)
  std::string out;  ///< stdout and stderr
};

/// Runs `cmd` with /bin/sh on the host (use for `ip netns ...` / `ip -n ...` only).
inline CmdResult sh(const std::string& cmd) {
  CmdResult r;
  FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int st = ::pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

class Netns {
 public:
  explicit Netns(const std::string& tag)
      : name_("qeli-t" + std::to_string(::getpid()) + "-" + tag) {
    sh("ip netns del " + name_);
    ok_ = sh("ip netns add " + name_).status == 0 && exec("ip link set lo up").status == 0;
  }
  ~Netns() { sh("ip netns del " + name_); }
  Netns(const Netns&) = delete;
  Netns& operator=(const Netns&) = delete;

  bool ok() const { return ok_; }
  const std::string& name() const { return name_; }

  /// A shell command inside the namespace.
  CmdResult exec(const std::string& cmd) const {
    return sh("ip netns exec " + name_ + " sh -c '" + cmd + "'");
  }

  /// Runs `fn` on a fresh thread that joined this namespace, and returns its result.
  template <class F>
  auto run(F&& fn) -> std::invoke_result_t<F> {
    using R = std::invoke_result_t<F>;
    std::optional<R> result;
    std::thread t([&] {
      const int fd = ::open(("/run/netns/" + name_).c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0 || ::setns(fd, CLONE_NEWNET) != 0) std::abort();  // never run on the host
      ::close(fd);
      result.emplace(fn());
    });
    t.join();
    return std::move(*result);
  }

  /// Joins the namespace with the calling thread (for a forked child only).
  bool enter() const {
    const int fd = ::open(("/run/netns/" + name_).c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    const bool ok = ::setns(fd, CLONE_NEWNET) == 0;
    ::close(fd);
    return ok;
  }

 private:
  std::string name_;
  bool ok_ = false;
};

}  // namespace qeli::sys::test
