// StopSignal: an eventfd that wakes every poll() waiting on it once stop() is called.
// Thread-safe; stop() is idempotent and async-signal-safe (a single write()).
#pragma once

#include <atomic>

namespace qeli::engine {

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

/// A wake-up for a thread that sleeps in poll(): notify() makes fd() readable until the
/// sleeper calls drain(). Many notify() calls before a drain() cost one wake-up.
class Notifier {
 public:
  Notifier();
  ~Notifier();
  Notifier(const Notifier&) = delete;
  Notifier& operator=(const Notifier&) = delete;
  void notify();
  void drain();
  int fd() const { return fd_; }

 private:
  int fd_;
};

}  // namespace qeli::engine
