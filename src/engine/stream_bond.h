// StreamBond: the TCP connections ("streams") that carry one session (qeli 0.7.16 §3.8,
// docs/PROTOCOL.md "Stream bonding"), on either end. The connection that authenticated
// is stream 0 and sends from the `primary` inbox; every JOINed connection claims a slot
// with an inbox of its own. The TUN readers pin each inner flow to one live stream by
// its 5-tuple hash (tunio/flow_hash.h) — no resequencing, so a flow is never split.
//
// Losing a stream only degrades: its slot goes dark and its flows move to the others
// (their TCP retransmits what was queued there). The session ends with its last stream.
//
// Thread-safety: pick() is lock-free (TUN readers, any number); attach/detach/wait take
// one mutex (connection threads). A slot's inbox lives as long as the bond, so a TUN
// reader that picked a slot just before it went dark still pushes into valid memory.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "base/bytes.h"
#include "engine/session_inbox.h"
#include "engine/stop_signal.h"
#include "tunnel/session_counters.h"

namespace qeli::engine {

class StreamBond {
 public:
  /// `max_streams` is clamped to 1..kMaxStreams (every client caps it there, 0.7.16
  /// §3.4). Stream 0 is `primary` (the session's inbox) and starts live.
  StreamBond(std::size_t max_streams, SessionInbox& primary, SessionInbox::Geometry geometry,
             tunnel::SessionCounters& counters);

  static constexpr std::size_t kMaxStreams = 16;

  std::size_t max_streams() const { return max_; }
  /// Streams live now (the primary included while it is).
  std::size_t live() const;

  /// Claims a dark slot for a JOINed stream, atomically against max_streams: its index
  /// (≥ 1), or nullopt when max_streams are live or the bond closed (its last stream
  /// went: the session is over). Inboxes are made on first use.
  ///
  /// `replace` (a session resume, docs/PROTOCOL.md §22): when max_streams are live, the
  /// oldest live stream is shut down (its socket, see set_socket) and the slot it leaves
  /// is taken — the client's new connection supersedes one the server still believes in
  /// after the path changed. Waits at most `replace_wait` for that stream to go.
  std::optional<std::size_t> attach(
      bool replace = false, std::chrono::milliseconds replace_wait = std::chrono::seconds(3));
  /// The socket of `slot`'s stream (attach(replace) shuts it down); -1: none.
  void set_socket(std::size_t slot, int fd);
  /// The inbox of `slot` (0: the primary). Valid for the bond's life.
  SessionInbox& inbox(std::size_t slot);
  /// The stream in `slot` ended: its flows go to the others (pick() spreads the flows
  /// over the live streams anew, so others may move too). Returns the streams still
  /// live; at 0 the bond is closed for good — unless `keep_open` (a session that may be
  /// resumed): then attach() still takes a stream until close_if_empty().
  std::size_t detach(std::size_t slot, bool keep_open = false);
  /// Blocks until no stream is live or `stop` fired.
  void wait_until_empty(const StopSignal& stop);
  /// Blocks until a stream is live (true), or `stop` fired or `timeout` passed (false).
  bool wait_for_stream(const StopSignal& stop, std::chrono::milliseconds timeout);
  /// Closes the bond if no stream is live (true: the session is over); false when a
  /// stream attached in the meantime.
  bool close_if_empty();

  /// The inbox for an inner packet: the primary while it is alone (no hashing), else the
  /// live stream its flow hash selects; the primary when none is live.
  SessionInbox& pick(ByteSpan ip);

 private:
  const std::size_t max_;
  SessionInbox& primary_;
  SessionInbox::Geometry geometry_;
  tunnel::SessionCounters& counters_;
  std::atomic<std::uint64_t> live_mask_{1};             ///< bit i: slot i carries traffic
  bool closed_ = false;                                 ///< guarded by mu_
  std::vector<std::unique_ptr<SessionInbox>> inboxes_;  ///< [0] unused (primary_)
  /// Per slot, guarded by mu_: its socket (-1: unknown) and when it attached (the oldest
  /// live one is replaced first).
  std::vector<int> sockets_;
  std::vector<std::uint64_t> attached_at_;
  std::uint64_t attach_seq_ = 0;
  mutable std::mutex mu_;
  std::condition_variable changed_;
};

}  // namespace qeli::engine
