// Trying every resolved address of the server (0.7.16 §8 "Connect": keep the IPv4 A
// records, try each with a share of the remaining `timeout` budget). The same plan for
// TCP (a connect) and UDP (a whole handshake: UDP has no connect that could fail).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>

#include "base/clock.h"

namespace qeli::client {

enum class AttemptResult : std::uint8_t {
  kConnected,  ///< done: use this address
  kNoAnswer,   ///< nothing usable from this address in its share: try the next one
  kStop,       ///< stop trying (a stop signal, a rejection, a fatal error)
};

/// What attempt `index` may spend: an equal share of what is left of `budget` among
/// the attempts left (`count - index`), so an address that fails fast leaves its time to
/// the others. Zero when nothing is left or no attempt is left.
Duration attempt_share(Duration budget, Duration elapsed, std::size_t count, std::size_t index);

/// Calls `attempt(i, share)` for i = 0, 1, … < count in order until one returns
/// kConnected (its index is returned) or kStop, or the budget is spent (nullopt).
/// `clock` measures the time spent (the fake clock in tests).
std::optional<std::size_t> try_in_turn(
    std::size_t count, Duration budget, const Clock& clock,
    const std::function<AttemptResult(std::size_t index, Duration share)>& attempt);

}  // namespace qeli::client
