#include "client/core/connect_plan.h"

namespace qeli::client {

Duration attempt_share(Duration budget, Duration elapsed, std::size_t count, std::size_t index) {
  if (index >= count || elapsed >= budget) return Duration::zero();
  return (budget - elapsed) / static_cast<std::int64_t>(count - index);
}

std::optional<std::size_t> try_in_turn(
    std::size_t count, Duration budget, const Clock& clock,
    const std::function<AttemptResult(std::size_t index, Duration share)>& attempt) {
  const Instant start = clock.now();
  for (std::size_t i = 0; i < count; ++i) {
    const Duration share = attempt_share(budget, clock.now() - start, count, i);
    if (share <= Duration::zero()) return std::nullopt;
    switch (attempt(i, share)) {
      case AttemptResult::kConnected: return i;
      case AttemptResult::kStop: return std::nullopt;
      case AttemptResult::kNoAnswer: break;
    }
  }
  return std::nullopt;
}

}  // namespace qeli::client
