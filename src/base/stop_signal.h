// StopSignal: an eventfd that wakes every poll() waiting on it once stop() is called.
// Thread-safe; stop() is idempotent and async-signal-safe (a single write()). The engine's
// loops stop on it; a control call (control/control_socket.h) gives up on it.
#pragma once

#include <atomic>

namespace qeli {

class StopSignal {
 public:
  StopSignal();
  ~StopSignal();
  StopSignal(const StopSignal&) = delete;
  StopSignal& operator=(const StopSignal&) = delete;

  void stop();
  bool stopped() const { return stopped_.load(std::memory_order_acquire); }
  /// Readable (POLLIN) once stopped; never reset.
  int fd() const { return fd_; }

 private:
  int fd_;
  std::atomic<bool> stopped_{false};
};

}  // namespace qeli
