#include "handshake/mtu_prober.h"

#include <algorithm>

#include "wire/limits.h"

namespace qeli::handshake {

const char* to_string(MtuProbeOutcome o) {
  switch (o) {
    case MtuProbeOutcome::kRunning: return "running";
    case MtuProbeOutcome::kProbed: return "probed";
    case MtuProbeOutcome::kFallback: return "fallback";
  }
  return "?";
}

MtuProber::MtuProber(const MtuProberConfig& config, Instant now)
    : config_(config), end_(now + config.budget) {
  config_.tries = std::max(1U, config_.tries);
  const std::size_t ceiling = std::clamp(config.ceiling, wire::kMinTunnelMtu, wire::kMaxTunnelMtu);
  rungs_.push_back(ceiling);
  for (std::uint16_t r : kMtuLadder) {
    if (r < ceiling) rungs_.push_back(r);
  }
  // What fits a 1280-byte path, if the last reference rung does not (see the header).
  if (config_.outer_overhead < kMinPathMtu) {
    const std::size_t fits = kMinPathMtu - config_.outer_overhead;
    if (fits < std::min<std::size_t>(kMtuLadder.back(), ceiling) && fits > kMtuFloor) {
      rungs_.push_back(fits);
    }
  }
  if (kMtuFloor < ceiling) rungs_.push_back(kMtuFloor);
  refused_.assign(rungs_.size(), false);
  best_ = rungs_.size();
  sent_.reserve(rungs_.size() * config_.tries);
}

std::size_t MtuProber::next_rung_to_send() const {
  for (std::size_t i = cursor_; i < rungs_.size() && i < best_; ++i) {
    if (!refused_[i]) return i;
  }
  return rungs_.size();
}

std::size_t MtuProber::top_in_play() const {
  for (std::size_t i = 0; i < rungs_.size(); ++i) {
    if (!refused_[i]) return i;
  }
  return rungs_.size();
}

std::optional<MtuProbeRequest> MtuProber::next(Instant now) {
  if (!done() && now >= end_) {
    if (best_ < rungs_.size()) {
      finish(MtuProbeOutcome::kProbed, rungs_[best_]);
    } else {
      finish(MtuProbeOutcome::kFallback, fallback());
    }
  }
  if (done() || !reported_ || round_due_) return std::nullopt;
  const std::size_t rung = next_rung_to_send();
  if (rung >= rungs_.size()) {
    // The round is all sent (or all refused): wait for its acks.
    round_due_ = now + config_.timeout;
    if (best_ >= rungs_.size() && top_in_play() >= rungs_.size()) {
      finish(MtuProbeOutcome::kFallback, fallback());  // the kernel refused every size
    }
    return std::nullopt;
  }
  if (cursor_ == 0) ++round_;
  cursor_ = rung + 1;
  MtuProbeRequest r;
  r.mtu = rungs_[rung];
  r.probe.id = next_id_++;
  r.probe.outer_size = static_cast<std::uint16_t>(r.mtu + config_.outer_overhead);
  sent_.push_back({r.probe.id, r.probe.outer_size, rung});
  reported_ = false;
  return r;
}

void MtuProber::on_sent(bool too_big, Instant now) {
  (void)now;
  if (done() || reported_) return;
  reported_ = true;
  if (!too_big) return;
  // The kernel knows this size cannot leave: no point waiting or trying it again.
  const std::size_t rung = sent_.back().rung;
  if (!refused_[rung]) ++refused_count_;
  refused_[rung] = true;
}

void MtuProber::on_ack(const wire::MtuProbe& ack, Instant now) {
  (void)now;
  if (done()) return;
  for (const Sent& s : sent_) {
    if (s.id == ack.id && s.outer == ack.outer_size) {
      best_ = std::min(best_, s.rung);
      // Nothing larger left to hear from: done now.
      if (best_ <= top_in_play()) finish(MtuProbeOutcome::kProbed, rungs_[best_]);
      return;
    }
  }
}

void MtuProber::on_timer(Instant now) {
  if (done()) return;
  if (now >= end_) {
    (void)next(now);  // finishes with what was acked, or the fallback
    return;
  }
  if (round_due_ && now >= *round_due_) end_round(now);
}

void MtuProber::end_round(Instant now) {
  (void)now;
  if (round_ >= config_.tries) {
    if (best_ < rungs_.size()) {
      finish(MtuProbeOutcome::kProbed, rungs_[best_]);
    } else {
      finish(MtuProbeOutcome::kFallback, fallback());
    }
    return;
  }
  // Another round over the rungs still in play above the best ack (all of them if nothing
  // was acked): one lost probe of a larger rung costs one more wait, not the rung.
  cursor_ = 0;
  round_due_.reset();
}

std::optional<Instant> MtuProber::deadline() const {
  if (done()) return std::nullopt;
  return round_due_ ? std::min(*round_due_, end_) : end_;
}

void MtuProber::finish(MtuProbeOutcome o, std::size_t mtu) {
  outcome_ = o;
  mtu_ = mtu;
}

std::size_t MtuProber::fallback() const {
  // What fits a 1280-byte path (the IPv6 minimum link MTU), below the ceiling.
  const std::size_t safe = config_.outer_overhead < kMinPathMtu
                               ? std::max(kMtuFloor, kMinPathMtu - config_.outer_overhead)
                               : kMtuFloor;
  for (std::size_t i = 0; i < rungs_.size(); ++i) {
    if (!refused_[i] && rungs_[i] <= safe) return rungs_[i];
  }
  return rungs_.back();
}

}  // namespace qeli::handshake
