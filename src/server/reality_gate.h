// RealityGate: the server's peek-and-decide in front of a `reality` profile (reference
// §4.2). Every accepted connection first comes here — one thread and one epoll set for
// all of them, so a scan costs no thread per stranger — and the gate reads what the peer
// sends until it holds a whole ClientHello record (tls::peek_client_hello), then asks
// authenticate_hello() (server/reality_auth.h):
//
//   token valid           → on_client(fd, bytes read, owner): the qeli handshake runs on
//                           the same bytes (they are its prefix);
//   anything else         → on_stranger(fd, bytes read, why): the decoy bridge, which
//                           sends those bytes to the real site first.
//
// Time budget (0.7.16): max(peek_timeout, 300 ms) + 300 ms for the whole record, and a peer that
// sends nothing new for max(budget / 5, 100 ms) has stalled; either way it is a stranger
// (a real client's hello arrives in one or two segments; a browser is bridged all the
// same). At most `max_pending` connections wait here at once (the profile's pre-auth
// bound); more are closed and counted.
//
// The decision is the reusable part: reality-tls hands the accepted connection to its
// TLS terminator instead of the fake-TLS handshake.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "base/bytes.h"
#include "base/clock.h"
#include "base/result.h"
#include "server/carrier_counters.h"
#include "server/reality_auth.h"
#include "transport/epoll_inbox.h"
#include "transport/sock_addr.h"
#include "transport/unique_fd.h"

namespace qeli::server {

class RealityGate {
 public:
  struct Options {
    Duration budget = std::chrono::milliseconds(1800);  ///< max(peek_timeout, 300 ms) + 300 ms
    std::size_t max_pending = 256;
  };
  /// A valid token: the connection, its peer (as accept() gave it), the bytes read, the
  /// user whose own short id the token carried.
  using OnClient = std::function<void(transport::UniqueFd, const transport::SockAddr&, Bytes,
                                      std::optional<std::string>)>;
  using OnStranger = std::function<void(transport::UniqueFd, Bytes, CarrierCounter)>;

  /// `counters` gets one verdict count per connection. The callbacks run on the gate
  /// thread and must not block (spawn the handshake; queue the bridge).
  RealityGate(Options options, RealityPolicy policy, CarrierCounters& counters, OnClient on_client,
              OnStranger on_stranger);
  ~RealityGate();
  RealityGate(const RealityGate&) = delete;
  RealityGate& operator=(const RealityGate&) = delete;

  Status<std::string> start();
  void stop();
  /// Takes an accepted connection and its peer. False (closed, counted) when max_pending
  /// wait already.
  bool add(transport::UniqueFd fd, const transport::SockAddr& peer);
  std::size_t pending() const { return pending_.load(); }

  /// The verdict's counter.
  static CarrierCounter counter_of(RealityVerdict v);

 private:
  struct Peek;
  void run();
  void on_readable(Peek& p, Instant now);
  void decide(Peek& p, CarrierCounter stranger_reason);
  void finish(Peek& p);

  Options opt_;
  RealityPolicy policy_;
  CarrierCounters& counters_;
  OnClient on_client_;
  OnStranger on_stranger_;
  struct Arrival {
    transport::UniqueFd fd;
    transport::SockAddr peer;
  };
  transport::EpollInbox<Arrival> inbox_;  // accepted connections (and stop)
  std::atomic<bool> stop_{false};
  std::atomic<std::size_t> pending_{0};
  std::vector<std::unique_ptr<Peek>> peeks_;  // gate thread only
  std::thread thread_;
};

}  // namespace qeli::server
