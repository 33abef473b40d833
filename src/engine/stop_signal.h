// StopSignal (base/stop_signal.h: an eventfd readable once stopped) and Notifier, the
// engine's wake-ups for threads that sleep in poll().
#pragma once

#include "base/stop_signal.h"

namespace qeli::engine {

using ::qeli::StopSignal;

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
