// The client's local status socket (`qeli status`): a control::ControlServer at
// /run/qeli/client-<dev><ns>.sock (the same per-namespace suffix as the host journal,
// client/state_paths.h; 0600 in a 0700 directory) answering control::GetClientStatus
// ({"cmd":"status"}) with ClientStatus::report(), plus a once-a-second ticker that samples the
// counters for the rates and pings the systemd watchdog.
#pragma once

#include <atomic>
#include <string>
#include <thread>

#include "client/client_status.h"
#include "control/control_socket.h"
#include "sys/service_notify.h"

namespace qeli::client {

inline constexpr char kStatusDir[] = "/run/qeli";

/// Pure: the socket of the client with `dev` in the namespace with `netns_suffix`.
std::string status_socket_path(const std::string& dev, const std::string& netns_suffix);
/// status_socket_path() for the calling thread's namespace.
std::string current_status_socket_path(const std::string& dev);

class StatusService : private control::ControlService {
 public:
  StatusService(ClientStatus& status, sys::ServiceNotifier& notifier);
  ~StatusService();
  StatusService(const StatusService&) = delete;
  StatusService& operator=(const StatusService&) = delete;

  /// Serves on `path` (empty: no socket, the ticker still runs). A socket that cannot be
  /// created is logged and skipped: status is a convenience, never a reason not to run.
  void start(const std::string& path);
  void stop();

 private:
  /// Answers GetClientStatus; every other request is a kUnknownCommand.
  Result<control::Response, control::ControlError> handle(const control::Request& request,
                                                          const control::Caller& caller) override;
  ClientStatus& status_;
  sys::ServiceNotifier& notifier_;
  control::ControlServer server_;
  std::atomic<bool> done_{false};
  std::thread ticker_;
};

}  // namespace qeli::client
