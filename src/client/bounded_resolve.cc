#include "client/bounded_resolve.h"

#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

namespace qeli::client {

std::optional<std::vector<transport::SockAddr>> resolve_within(const transport::HostPort& hp,
                                                               std::chrono::milliseconds limit,
                                                               std::string* why) {
  struct Shared {
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    std::optional<std::vector<transport::SockAddr>> result;
    std::string error;
  };
  auto shared = std::make_shared<Shared>();
  std::thread([shared, hp] {
    auto r = transport::resolve(hp);
    std::lock_guard lock(shared->mu);
    if (r.ok()) {
      shared->result = std::move(*r);
    } else {
      shared->error = r.error().message;
    }
    shared->done = true;
    shared->cv.notify_all();
  }).detach();
  std::unique_lock lock(shared->mu);
  if (!shared->cv.wait_for(lock, limit, [&] { return shared->done; })) {
    if (why != nullptr) *why = "no answer within " + std::to_string(limit.count()) + " ms";
    return std::nullopt;
  }
  if (!shared->result && why != nullptr) *why = shared->error;
  return shared->result;
}

}  // namespace qeli::client
