// Bridge: the REALITY decoy bridge (reference §4.2; reality-tls.md A.4) — byte-for-byte
// TCP relays between strangers and the real site (`reality_proxy.target:target_port`),
// so whoever is not our client talks to that site through us and sees its certificate,
// its pages and its errors.
//
// One thread and one epoll set for every bridge of a profile (no thread per stranger);
// bytes move kernel to kernel with splice(2) through a pipe per direction, never through
// user space. The bytes the gate already read (the ClientHello it looked at) are sent to
// the target first. A half-close is passed on (EOF from one side → shutdown(SHUT_WR) to
// the other); the bridge ends when both directions are done, on an error or reset, when
// nothing moved either way for `idle`, or at `lifetime` — each end counted by reason.
// Bounded: at most `max_bridges` at once; add() refuses more (the caller drops the
// stranger, as 0.7.16 does when its decoy budget is exhausted).
//
// The target's name is resolved at start and again every 5 minutes (a failure keeps the
// last address; with none, bridges fail to connect and are counted).
#pragma once

#include <atomic>
#include <condition_variable>
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
#include "transport/endpoint.h"
#include "transport/epoll_inbox.h"
#include "transport/unique_fd.h"

namespace qeli::transport {

struct BridgeLimits {
  std::size_t max_bridges = 128;
  Duration connect_timeout = std::chrono::seconds(10);
  Duration idle = std::chrono::seconds(120);      ///< no byte in either direction
  Duration lifetime = std::chrono::seconds(600);  ///< absolute
};

enum class BridgeEnd : std::uint8_t {
  kEof,            ///< both directions finished (FIN both ways)
  kIdle,           ///< nothing moved for `idle`
  kLifetime,       ///< `lifetime` reached
  kError,          ///< a reset or a socket error on either side
  kConnectFailed,  ///< the target did not accept within connect_timeout (or no address)
  kStopped,        ///< the bridge was stopped
};
const char* to_string(BridgeEnd e);

class Bridge {
 public:
  /// `on_end` is called on the bridge thread once per bridge that add() accepted.
  Bridge(HostPort target, BridgeLimits limits, std::function<void(BridgeEnd)> on_end);
  ~Bridge();
  Bridge(const Bridge&) = delete;
  Bridge& operator=(const Bridge&) = delete;

  /// Starts the thread (and the resolver). Error: epoll/eventfd could not be created.
  Status<std::string> start();
  /// Ends every bridge (kStopped) and joins the threads.
  void stop();

  /// Bridges `client` (a connected TCP socket) to the target, sending `prefix` first.
  /// False when the pool is full: `client` is closed here, nothing was counted.
  bool add(UniqueFd client, Bytes prefix);

  std::size_t active() const { return active_.load(); }
  const BridgeLimits& limits() const { return limits_; }
  /// The target's address as last resolved; nullopt while its name has never resolved
  /// (every bridge then ends kConnectFailed).
  std::optional<SockAddr> target_endpoint();

 private:
  struct Conn;
  void run();
  void resolve_loop();
  void begin(std::unique_ptr<Conn> c, Instant now);
  void pump(Conn& c);
  void end(Conn& c, BridgeEnd why);
  void update_interest(Conn& c);

  HostPort target_;
  BridgeLimits limits_;
  std::function<void(BridgeEnd)> on_end_;
  EpollInbox<std::pair<UniqueFd, Bytes>> inbox_;  // new strangers (and stop)
  std::atomic<bool> stop_{false};
  std::atomic<std::size_t> active_{0};
  std::mutex mu_;  // endpoint_
  std::optional<SockAddr> endpoint_;
  std::mutex resolve_mu_;
  std::condition_variable resolve_cv_;
  std::thread thread_;
  std::thread resolver_;
  std::vector<std::unique_ptr<Conn>> conns_;  // bridge thread only
};

}  // namespace qeli::transport
