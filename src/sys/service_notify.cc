#include "sys/service_notify.h"

#include <systemd/sd-daemon.h>

#include <algorithm>
#include <cstdint>

namespace qeli::sys {
namespace {

void send(const std::string& s) { (void)sd_notify(0, s.c_str()); }

}  // namespace

ServiceNotifier::ServiceNotifier() {
  std::uint64_t usec = 0;
  if (sd_watchdog_enabled(0, &usec) > 0 && usec > 0) {
    period_ = std::chrono::milliseconds(std::max<std::uint64_t>(usec / 2000, 1));
  }
}

void ServiceNotifier::ready(const std::string& status) { send("READY=1\nSTATUS=" + status); }

void ServiceNotifier::reloading() { send("RELOADING=1"); }

void ServiceNotifier::stopping() { send("STOPPING=1"); }

void ServiceNotifier::status(const std::string& status) { send("STATUS=" + status); }

void ServiceNotifier::watchdog() { send("WATCHDOG=1"); }

}  // namespace qeli::sys
