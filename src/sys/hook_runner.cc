#include "sys/hook_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

extern char** environ;

namespace qeli::sys {
namespace {

using Clock = std::chrono::steady_clock;

std::vector<std::string> merged_environment(const HookEnv& extra) {
  std::vector<std::string> out;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string_view kv(*e);
    const auto eq = kv.find('=');
    bool overridden = false;
    for (const auto& [k, v] : extra) {
      if (eq != std::string_view::npos && kv.substr(0, eq) == k) overridden = true;
    }
    if (!overridden) out.emplace_back(kv);
  }
  for (const auto& [k, v] : extra) out.push_back(k + "=" + v);
  return out;
}

int remaining_ms(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return left.count() <= 0 ? 0 : static_cast<int>(left.count());
}

}  // namespace

std::string HookResult::describe() const {
  if (!started) return "could not start: " + error;
  if (timed_out) return "killed after its timeout";
  if (signal != 0) return "ended by signal " + std::to_string(signal);
  return "exit " + std::to_string(exit_code);
}

HookResult run_hook(const std::string& command, const HookEnv& env,
                    std::chrono::milliseconds timeout, bool separate_stderr) {
  HookResult r;
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) {
    r.error = std::string("pipe: ") + std::strerror(errno);
    return r;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  if (!separate_stderr) posix_spawn_file_actions_adddup2(&fa, out[1], 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // Its own process group, so a timeout kills what the shell started too; default signal
  // handling and an empty mask (our threads block SIGTERM/SIGHUP for sigwait).
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  const std::vector<std::string> envs = merged_environment(env);
  std::vector<char*> envp;
  for (const auto& e : envs) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  const char* argv[] = {"/bin/sh", "-c", command.c_str(), nullptr};
  pid_t pid = -1;
  const int rc =
      posix_spawn(&pid, "/bin/sh", &fa, &attr, const_cast<char* const*>(argv), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  ::close(out[1]);
  if (rc != 0) {
    ::close(out[0]);
    r.error = std::string("posix_spawn /bin/sh: ") + std::strerror(rc);
    return r;
  }
  r.started = true;
  const auto deadline = Clock::now() + timeout;
  bool killed = false;
  Clock::time_point kill_at{};
  char buf[4096];
  for (;;) {
    pollfd p{out[0], POLLIN, 0};
    const int wait_ms = killed ? remaining_ms(kill_at) : remaining_ms(deadline);
    const int n = ::poll(&p, 1, wait_ms);
    if (n < 0 && errno == EINTR) continue;
    if (n > 0) {
      const ssize_t got = ::read(out[0], buf, sizeof buf);
      if (got > 0) {
        const std::size_t room = kHookOutputMax - std::min(kHookOutputMax, r.output.size());
        r.output.append(buf, std::min<std::size_t>(room, static_cast<std::size_t>(got)));
        continue;
      }
      if (got < 0 && errno == EINTR) continue;
      break;  // EOF: every writer (the shell and what it left running) closed the pipe
    }
    if (!killed) {
      r.timed_out = true;
      ::kill(-pid, SIGTERM);
      killed = true;
      kill_at = Clock::now() + std::chrono::seconds(1);
    } else {
      ::kill(-pid, SIGKILL);
      break;
    }
  }
  ::close(out[0]);
  int status = 0;
  // The shell may have exited while a child it left behind held the pipe; wait anyway.
  if (r.timed_out) ::kill(-pid, SIGKILL);
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  return r;
}

}  // namespace qeli::sys
