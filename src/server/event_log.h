// EventLog: the server's recent events (control::Event: sessions connecting and ending,
// lockouts, user switches, config changes), numbered from 1, in a bounded ring
// (kCapacity; the oldest are forgotten). The panel reads it with `events after=N` and
// turns it into its dashboard feed and webhooks; `boot` changes when the server
// restarts, so a reader knows its `after` no longer applies.
//
// Thread-safe: push() is called from connection threads, since() from the control socket.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>

#include "control/api.h"

namespace qeli::server {

class EventLog {
 public:
  static constexpr std::size_t kCapacity = 4096;
  EventLog();

  /// Numbers and stamps `e` (seq, unix_ms) and keeps it; then hands it to the observer.
  void push(control::Event e);
  /// Called with every event after it is numbered (the webhook dispatcher), on the
  /// pushing thread, outside the log's lock: it must be quick. Set before events flow.
  void set_observer(std::function<void(const control::Event&)> f) { observer_ = std::move(f); }
  /// Events with seq > `after`, oldest first, at most `limit`.
  control::EventList since(std::uint64_t after, std::uint32_t limit) const;
  const std::string& boot() const { return boot_; }

 private:
  std::string boot_;
  mutable std::mutex mu_;
  std::deque<control::Event> ring_;
  std::uint64_t next_seq_ = 1;
  std::function<void(const control::Event&)> observer_;
};

}  // namespace qeli::server
