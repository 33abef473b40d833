#include "sys/child_exec.h"

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace qeli::sys {

pid_t spawn_with_fd(const std::vector<std::string>& args, int fd, int target,
                    const sigset_t& mask) {
  std::vector<std::string> copy = args;  // execv wants char*, prepared before the fork
  std::vector<char*> argv;
  for (auto& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  ::sigprocmask(SIG_SETMASK, &mask, nullptr);
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) ::signal(s, SIG_DFL);
  if (fd == target) {
    // dup2 onto itself would keep O_CLOEXEC: the descriptor would not cross the exec.
    if (::fcntl(target, F_SETFD, 0) != 0) ::_exit(127);
  } else if (::dup2(fd, target) != target) {
    ::_exit(127);
  }
  // Nothing of the server's (TUN queues, sockets, the control socket) crosses the exec;
  // without close_range (Linux < 5.9, or a seccomp filter) one by one.
  if (::syscall(SYS_close_range, target + 1, ~0U, 0) != 0) {
    for (int i = target + 1; i < 65536; ++i) ::close(i);
  }
  ::execv(argv[0], argv.data());
  ::_exit(127);
}

}  // namespace qeli::sys
