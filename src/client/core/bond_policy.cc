#include "client/core/bond_policy.h"

#include <algorithm>

namespace qeli::client {

BondPolicy::BondPolicy(std::size_t max_streams, bool adaptive)
    : max_(std::max<std::size_t>(max_streams, 1)),
      adaptive_(adaptive),
      target_(adaptive ? 1 : max_) {}

void BondPolicy::on_sample(std::uint64_t total_bytes, Instant now) {
  if (!adaptive_) return;
  if (!have_sample_ || now <= last_at_ || total_bytes < last_bytes_) {
    have_sample_ = true;
    last_bytes_ = total_bytes;
    last_at_ = now;
    return;
  }
  const double secs = std::chrono::duration<double>(now - last_at_).count();
  const double rate = static_cast<double>(total_bytes - last_bytes_) / secs;
  last_bytes_ = total_bytes;
  last_at_ = now;
  if (grace_) {  // the stream just added is still ramping up
    grace_ = false;
    return;
  }
  if (plateau_ || target_ >= max_ || rate <= static_cast<double>(kAdaptiveMinLoad)) return;
  if (rate > best_rate_ * 1.1) {
    best_rate_ = rate;
    ++target_;
    grace_ = true;
  } else {
    plateau_ = true;  // the last stream added did not pay for itself
  }
}

}  // namespace qeli::client
