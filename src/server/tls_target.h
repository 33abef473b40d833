// TlsTarget: what the reality-tls terminator of one profile mirrors — the target's
// tls::TargetShape (how it answers a Chromium hello; tls/target_shape.h).
//
// 0.7.16 probes the target when the profile starts (at most 8 s) and every 12 h; so do
// we, with two differences: a failed refresh keeps the last good shape instead of
// falling back, and the shape in use is logged and shown by `qeli stats`. Until a probe
// succeeds (the target down at boot), the conservative fallback shape is used
// (tls::fallback_shape: OpenSSL/nginx's answer, a certificate for the name under a CA of
// our own). A reload (SIGHUP) probes again at once.
// With `obf.tls.reality_proxy.handrolled = false` (0.7.16's terminator with a generated
// certificate) the target is never probed: the fallback shape is the answer.
//
// Thread-safe: current() may be called by any connection thread while the refresh
// thread swaps the shape.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "engine/stop_signal.h"
#include "tls/target_shape.h"

namespace qeli::server {

class TlsTarget {
 public:
  struct Options {
    std::string profile;  ///< for the log
    std::string host;     ///< obf.tls.reality_proxy.target
    std::uint16_t port = 443;
    std::string sni;    ///< what our clients send (obf.tls.server_name), else the host
    bool probe = true;  ///< false: handrolled = false, the fallback shape only
    std::chrono::milliseconds timeout{8000};
    std::chrono::seconds refresh{12 * 3600};
  };

  explicit TlsTarget(Options options);
  ~TlsTarget();
  TlsTarget(const TlsTarget&) = delete;
  TlsTarget& operator=(const TlsTarget&) = delete;

  /// The first probe (blocking, at most `timeout`), then the refresh thread.
  void start();
  void stop();
  /// Probe again soon, on the refresh thread (a reload: the operator may have changed the
  /// target site's certificate or fixed its reachability). Returns at once; thread-safe.
  void refresh_now();

  std::shared_ptr<const tls::TargetShape> current() const;
  /// describe(current()), for `qeli stats`.
  std::string describe() const;

 private:
  void probe_once(bool first);
  void refresh_loop();

  Options opt_;
  engine::StopSignal stop_;  // also cancels a probe under way
  engine::Notifier wake_;    // refresh_now()
  mutable std::mutex mu_;
  bool probed_ok_ = false;  // a probe has worked once
  std::shared_ptr<const tls::TargetShape> shape_;
  std::thread thread_;
};

}  // namespace qeli::server
