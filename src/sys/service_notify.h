// The systemd service protocol (sd_notify(3)) for `Type=notify` units: readiness after
// start-up, RELOADING=1/READY=1 around a SIGHUP reload, STOPPING=1, a STATUS= line for
// `systemctl status`, and the watchdog (WatchdogSec=: WATCHDOG=1 at half the interval).
// Outside systemd ($NOTIFY_SOCKET unset) every call is a no-op, so foreground runs and
// tests behave the same.
#pragma once

#include <chrono>
#include <optional>
#include <string>

namespace qeli::sys {

class ServiceNotifier {
 public:
  ServiceNotifier();

  void ready(const std::string& status);
  void reloading();
  void stopping();
  void status(const std::string& status);
  /// WATCHDOG=1; the caller's loop proves it is alive by calling this.
  void watchdog();
  /// How often watchdog() must be called (half of WATCHDOG_USEC), if the unit has a
  /// watchdog for this process.
  std::optional<std::chrono::milliseconds> watchdog_period() const { return period_; }

 private:
  std::optional<std::chrono::milliseconds> period_;
};

}  // namespace qeli::sys
