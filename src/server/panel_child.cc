#include "server/panel_child.h"

#include <fcntl.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "sys/child_exec.h"

namespace qeli::server {
namespace {

constexpr int kKeyFd = 3;

}  // namespace

PanelChild::PanelChild(std::vector<std::string> argv, const config::WebSessionKey& key)
    : argv_(std::move(argv)), key_(key) {
  argv_.push_back("--session-key-fd");
  argv_.push_back(std::to_string(kKeyFd));
}

PanelChild::~PanelChild() { stop(); }

pid_t PanelChild::pid() const {
  std::lock_guard lock(mu_);
  return pid_;
}

// Everything the child needs is prepared before fork(): after it, in a process with
// threads, only async-signal-safe calls (dup2, close, sigprocmask, execv).
pid_t PanelChild::spawn() {
  int p[2];
  if (::pipe2(p, O_CLOEXEC) != 0) {
    spdlog::error("panel: pipe: {}", std::strerror(errno));
    return -1;
  }
  // The child starts with only SIGHUP blocked: SIGTERM must end it at any time (the panel
  // waits for its signals with sigwait itself, and must see ours even before it gets
  // there), and a SIGHUP (reopen_logs) that comes before it waits stays pending.
  sigset_t hup;
  sigemptyset(&hup);
  sigaddset(&hup, SIGHUP);
  const pid_t pid = sys::spawn_with_fd(argv_, p[0], kKeyFd, hup);
  if (pid < 0) {
    spdlog::error("panel: fork: {}", std::strerror(errno));
    ::close(p[0]);
    ::close(p[1]);
    return -1;
  }
  ::close(p[0]);
  // 32 bytes fit in any pipe's buffer: this never blocks.
  const ssize_t n = ::write(p[1], key_.data(), key_.size());
  ::close(p[1]);
  if (n != static_cast<ssize_t>(key_.size()))
    spdlog::warn("panel: handing over the session key failed");
  spdlog::info("panel: started (pid {})", pid);
  return pid;
}

void PanelChild::start() {
  std::lock_guard lock(mu_);
  if (watcher_.joinable()) return;
  stopping_ = false;
  pid_ = spawn();
  watcher_ = std::thread([this] { watch(); });
}

void PanelChild::watch() {
  using namespace std::chrono;
  seconds backoff{1};
  auto started = steady_clock::now();
  for (;;) {
    pid_t pid;
    {
      std::lock_guard lock(mu_);
      pid = pid_;
    }
    int status = 0;
    if (pid > 0) {
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
    }
    std::unique_lock lock(mu_);
    pid_ = 0;
    if (stopping_) return;
    if (restart_now_) {
      restart_now_ = false;
      backoff = seconds{1};
    } else {
      if (pid > 0) {
        if (WIFEXITED(status)) {
          spdlog::error("panel: exited with status {}; starting it again in {} s",
                        WEXITSTATUS(status), backoff.count());
        } else {
          spdlog::error("panel: killed by signal {}; starting it again in {} s",
                        WIFSIGNALED(status) ? WTERMSIG(status) : 0, backoff.count());
        }
      }
      if (steady_clock::now() - started > minutes{1}) backoff = seconds{1};
      cv_.wait_for(lock, backoff, [this] { return stopping_ || restart_now_; });
      if (stopping_) return;
      restart_now_ = false;
      backoff = std::min(backoff * 2, seconds{60});
    }
    started = steady_clock::now();
    pid_ = spawn();
    if (pid_ < 0) pid_ = 0;
    if (pid_ == 0) {
      // fork failed: wait a back-off before the next try.
      cv_.wait_for(lock, backoff, [this] { return stopping_; });
      if (stopping_) return;
    }
  }
}

void PanelChild::restart() {
  std::lock_guard lock(mu_);
  restart_now_ = true;
  if (pid_ > 0) ::kill(pid_, SIGTERM);
  cv_.notify_all();
}

void PanelChild::reopen_logs() {
  std::lock_guard lock(mu_);
  if (pid_ > 0) ::kill(pid_, SIGHUP);
}

void PanelChild::stop() {
  pid_t pid;
  {
    std::lock_guard lock(mu_);
    if (!watcher_.joinable()) return;
    stopping_ = true;
    pid = pid_;
    cv_.notify_all();
  }
  if (pid > 0) {
    ::kill(pid, SIGTERM);
    for (int i = 0; i < 50 && this->pid() == pid; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if (this->pid() == pid) ::kill(pid, SIGKILL);
  }
  watcher_.join();
}

}  // namespace qeli::server
