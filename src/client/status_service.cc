#include "client/status_service.h"

#include <spdlog/spdlog.h>

#include <chrono>

#include "sys/netns_identity.h"

namespace qeli::client {

std::string status_socket_path(const std::string& dev, const std::string& netns_suffix) {
  return std::string(kStatusDir) + "/client-" + dev + netns_suffix + ".sock";
}

std::string current_status_socket_path(const std::string& dev) {
  std::string suffix;
  if (auto ns = sys::current_netns(); ns.ok()) suffix = sys::netns_suffix(*ns);
  return status_socket_path(dev, suffix);
}

StatusService::StatusService(ClientStatus& status, sys::ServiceNotifier& notifier)
    : status_(status), notifier_(notifier) {}

StatusService::~StatusService() { stop(); }

void StatusService::start(const std::string& path) {
  if (!path.empty()) {
    auto st = server_.start(path, *this, control::host_access_policy(std::nullopt));
    if (!st.ok()) spdlog::warn("status socket {} disabled: {}", path, st.error());
  }
  const auto period = notifier_.watchdog_period();
  ticker_ = std::thread([this, period] {
    auto next_ping = std::chrono::steady_clock::now();
    auto next_sample = next_ping;
    while (!done_.load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      const auto now = std::chrono::steady_clock::now();
      if (period && now >= next_ping) {
        notifier_.watchdog();
        next_ping = now + *period;
      }
      if (now >= next_sample) {
        status_.sample(now);
        next_sample = now + std::chrono::seconds(1);
      }
    }
  });
}

Result<control::Response, control::ControlError> StatusService::handle(
    const control::Request& request, const control::Caller&) {
  if (!std::holds_alternative<control::GetClientStatus>(request)) {
    return fail(control::ControlError{control::ErrorCode::kUnknownCommand,
                                      "unknown command (this is a client: status)"});
  }
  return control::Response{
      status_.report(std::chrono::steady_clock::now(), std::chrono::system_clock::now())};
}

void StatusService::stop() {
  done_.store(true);
  if (ticker_.joinable()) ticker_.join();
  server_.stop();
}

}  // namespace qeli::client
