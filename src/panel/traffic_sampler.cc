#include "panel/traffic_sampler.h"

#include <memory>

#include "panel/answers.h"

namespace qeli::panel {

TrafficSampler::TrafficSampler(Step step, std::chrono::milliseconds every)
    : thread_([this, step = std::move(step), every] { run(step, every); }) {}

TrafficSampler::~TrafficSampler() { stop(); }

void TrafficSampler::run(const Step& step, std::chrono::milliseconds every) {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    lock.unlock();
    step();
    lock.lock();
    cv_.wait_for(lock, every, [this] { return stopping_; });
  }
}

void TrafficSampler::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

TrafficSampler::Step traffic_step(control::ControlService& server, TrafficHistory& history,
                                  std::function<std::int64_t()> unix_now) {
  // The meters live as long as the step (the sampler's thread is their only user).
  struct Meters {
    TrafficMeter server;
    UserTrafficMeter users;
  };
  auto meters = std::make_shared<Meters>();
  return [&server, &history, unix_now = std::move(unix_now), meters] {
    std::string error;
    const auto stats = ask(server, control::GetStats{}, error);
    if (!stats) return;
    const auto d = meters->server.observe(totals_of(*stats));
    const std::int64_t now = unix_now();
    if (d && (d->down_bytes != 0 || d->up_bytes != 0)) history.add(now, *d);
    const auto usage = ask(server, control::GetUsage{}, error);
    if (!usage) {
      meters->users.reset();  // the next answer is a baseline: its interval is unknown
      return;
    }
    history.add_users(now, meters->users.observe(*usage, d));
  };
}

}  // namespace qeli::panel
