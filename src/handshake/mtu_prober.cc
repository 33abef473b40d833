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
  sent_.reserve(rungs_.size() * config_.tries);
}

std::optional<MtuProbeRequest> MtuProber::next(Instant now) {
  if (!done() && now >= end_) finish(MtuProbeOutcome::kFallback, fallback());
  if (done() || waiting_) return std::nullopt;
  const std::size_t mtu = rungs_[rung_];
  MtuProbeRequest r;
  r.mtu = mtu;
  r.probe.id = next_id_++;
  r.probe.outer_size = static_cast<std::uint16_t>(mtu + config_.outer_overhead);
  sent_.push_back({r.probe.id, r.probe.outer_size, rung_});
  ++tries_;
  waiting_ = true;
  reported_ = false;
  ack_due_ = now + config_.timeout;
  return r;
}

void MtuProber::on_sent(bool too_big, Instant now) {
  (void)now;
  if (done() || reported_) return;
  reported_ = true;
  if (!too_big) return;
  // The kernel knows this size cannot leave: no point waiting or trying again.
  if (!refused_[rung_]) ++refused_count_;
  refused_[rung_] = true;
  advance();
}

void MtuProber::on_ack(const wire::MtuProbe& ack, Instant now) {
  (void)now;
  if (done()) return;
  for (const Sent& s : sent_) {
    if (s.id == ack.id && s.outer == ack.outer_size) {
      finish(MtuProbeOutcome::kProbed, rungs_[s.rung]);
      return;
    }
  }
}

void MtuProber::on_timer(Instant now) {
  if (done()) return;
  if (now >= end_) {
    finish(MtuProbeOutcome::kFallback, fallback());
    return;
  }
  if (waiting_ && now >= ack_due_ && tries_ >= config_.tries) {
    advance();
  } else if (waiting_ && now >= ack_due_) {
    waiting_ = false;  // try this rung again
  }
}

std::optional<Instant> MtuProber::deadline() const {
  if (done()) return std::nullopt;
  return waiting_ ? std::min(ack_due_, end_) : end_;
}

void MtuProber::advance() {
  waiting_ = false;
  tries_ = 0;
  if (++rung_ >= rungs_.size()) finish(MtuProbeOutcome::kFallback, fallback());
}

void MtuProber::finish(MtuProbeOutcome o, std::size_t mtu) {
  outcome_ = o;
  mtu_ = mtu;
  waiting_ = false;
}

std::size_t MtuProber::fallback() const {
  for (std::size_t i = 0; i < rungs_.size(); ++i) {
    if (!refused_[i]) return rungs_[i];
  }
  return rungs_.back();
}

}  // namespace qeli::handshake
