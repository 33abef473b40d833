// TcpListener: a TCP profile's listening sockets (bind.address first, then every `listen`
// endpoint) and the loop that accepts on them, on the profile's listener thread:
//   1. poll the listeners and the stop signal (1 s timeout; `on_round` runs every round:
//      the profile reaps finished connection threads there);
//   2. per readable listener, at most 64 accept4() calls per round, so a connect flood on
//      one listener does not starve the others;
//   3. each connection goes to `on_accept` with its peer, counted in `accepted`; the
//      callback decides at once (a thread, the REALITY gate, or closing it) and returns;
//   4. accept() failing for lack of descriptors or memory (EMFILE, ENFILE, ENOBUFS,
//      ENOMEM) is counted in `accept_no_resources` and backs off (AcceptBackoff: growing
//      waits, a log line at most now and then) while only the stop signal is watched —
//      the listeners stay readable, and spinning on them would burn a core.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "engine/stop_signal.h"
#include "server/accept_backoff.h"
#include "server/profile_counters.h"
#include "transport/sock_addr.h"
#include "transport/unique_fd.h"

namespace qeli::server {

class TcpListener {
 public:
  using OnAccept = std::function<void(transport::UniqueFd conn, const transport::SockAddr& peer)>;

  /// `listeners`: bound, listening sockets (at least one). `name` prefixes log lines;
  /// `counters` (accepted, accept_no_resources) must outlive the object.
  TcpListener(std::string name, std::vector<transport::UniqueFd> listeners,
              ProfileCounters& counters);

  /// The local addresses the listeners are bound to, in order.
  std::vector<transport::SockAddr> local_addresses() const;

  /// The loop (see the header) on the calling thread until `stop` fires.
  void run(const engine::StopSignal& stop, const OnAccept& on_accept,
           const std::function<void()>& on_round);

 private:
  /// Accepts what `listener` has queued; the back-off to wait (zero usually).
  Duration accept_ready(const transport::UniqueFd& listener, const OnAccept& on_accept);

  const std::string name_;
  ProfileCounters& counters_;
  std::vector<transport::UniqueFd> listeners_;
  AcceptBackoff backoff_;
};

}  // namespace qeli::server
