#include "engine/traffic_pacing.h"

#include <poll.h>

#include <chrono>

namespace qeli::engine {
namespace {

// Sleeps `d` (rounded up to whole ms, so the debt is always repaid) unless a signal fires.
void wait_for(Duration d, const StopSignal& a, const StopSignal* b) {
  if (d <= Duration::zero()) return;
  const auto ms = std::chrono::ceil<std::chrono::milliseconds>(d).count();
  pollfd p[2] = {{a.fd(), POLLIN, 0}, {b != nullptr ? b->fd() : -1, POLLIN, 0}};
  (void)::poll(p, b != nullptr ? 2 : 1, static_cast<int>(std::min<long long>(ms, 60'000)));
}

}  // namespace

std::uint64_t batch_bytes(const tunio::PacketBatch& batch) {
  std::uint64_t n = 0;
  for (std::size_t i = 0; i < batch.size(); ++i) n += batch.packet(i).size();
  return n;
}

bool pace_send(TrafficAccount* account, std::uint64_t bytes, const StopSignal& stop) {
  if (account == nullptr) return true;
  wait_for(account->on_send(bytes, std::chrono::steady_clock::now()), stop, nullptr);
  return !account->quota_exhausted();
}

void pace_receive(TrafficAccount* account, std::uint64_t bytes, const StopSignal& stop,
                  const StopSignal& local) {
  if (account == nullptr || bytes == 0) return;
  wait_for(account->on_receive(bytes, std::chrono::steady_clock::now()), stop, &local);
}

}  // namespace qeli::engine
