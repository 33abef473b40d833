// PanelChild: `qeli server` with [web] enabled = true runs the panel as a child process
// (`qeli panel`, panel/panel_run.h) instead of a thread of its own: the panel parses HTTP
// from the network, and a fault there must not reach the process that holds CAP_NET_ADMIN,
// the identity keys and every session. The child gives up every capability after binding
// its port, and reaches the server only through the control socket.
//
// The session key (config/web_session_key.h) is handed over on fd 3 (a pipe), so a
// restarted panel keeps its admins logged in even when the key is not persisted.
// A panel that exits on its own is started again after a back-off (1 s doubling to 60 s;
// reset after it ran for a minute). stop() ends it (SIGTERM, SIGKILL after 5 s).
//
// Thread-safe: start(), restart() and stop() may be called from any thread.
#pragma once

#include <sys/types.h>

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "config/web_session_key.h"

namespace qeli::server {

class PanelChild {
 public:
  /// `argv` runs the panel (argv[0] is the program path, execv'd; "--session-key-fd 3"
  /// is appended).
  PanelChild(std::vector<std::string> argv, const config::WebSessionKey& key);
  ~PanelChild();
  PanelChild(const PanelChild&) = delete;
  PanelChild& operator=(const PanelChild&) = delete;

  /// Starts the child and the thread that watches it.
  void start();
  /// Ends the running child; the watcher starts a new one at once (a reload that
  /// changed [web]: the panel reads its settings when it starts).
  void restart();
  void stop();
  /// SIGHUP to the running child: it reopens its [logging] file (the server's reload,
  /// after logrotate moved the file away).
  void reopen_logs();
  /// The running child's pid (0 if none).
  pid_t pid() const;

 private:
  pid_t spawn();
  void watch();

  std::vector<std::string> argv_;
  config::WebSessionKey key_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  pid_t pid_ = 0;
  bool stopping_ = false;
  bool restart_now_ = false;
  std::thread watcher_;
};

}  // namespace qeli::server
