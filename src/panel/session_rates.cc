#include "panel/session_rates.h"

namespace qeli::panel {

std::vector<std::optional<SessionRate>> SessionRates::observe(const control::SessionList& list,
                                                              Instant now) {
  std::vector<std::optional<SessionRate>> out;
  out.reserve(list.clients.size());
  std::map<std::pair<std::string, std::uint64_t>, Sample> next;
  std::lock_guard lock(mu_);
  for (const auto& s : list.clients) {
    auto key = std::make_pair(s.profile, s.id);
    Sample fresh{now, s.rx_bytes, s.tx_bytes, std::nullopt};
    const auto it = samples_.find(key);
    if (it != samples_.end() && s.rx_bytes >= it->second.rx_bytes &&
        s.tx_bytes >= it->second.tx_bytes && now >= it->second.at) {
      const Sample& prev = it->second;
      const auto span = now - prev.at;
      if (span < kMinSpan) {
        fresh = prev;  // too close to the kept sample: keep it, repeat its rate
      } else {
        const double secs = std::chrono::duration<double>(span).count();
        fresh.rate = SessionRate{static_cast<double>(s.rx_bytes - prev.rx_bytes) / secs,
                                 static_cast<double>(s.tx_bytes - prev.tx_bytes) / secs};
      }
    }
    out.push_back(fresh.rate);
    next.insert_or_assign(std::move(key), std::move(fresh));
  }
  samples_ = std::move(next);
  return out;
}

std::size_t SessionRates::size() const {
  std::lock_guard lock(mu_);
  return samples_.size();
}

}  // namespace qeli::panel
