// ChannelTun: a tunio::TunDevice in memory — the test is the operating system on the other
// side of the TUN. inject() puts packets where read_batch() finds them (what the kernel
// routes into the tunnel); write_batch() collects what the engine delivers (what the
// kernel would receive from the tunnel), keeping GSO metadata; received_segments()
// splits super-packets back into plain packets the way the kernel would.
// fd() is a real eventfd, readable while injected packets wait. Thread-safe.
#pragma once

#include <sys/eventfd.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <vector>

#include "base/bytes.h"
#include "tunio/offload_split.h"
#include "tunio/offload_validate.h"
#include "tunio/tun_device.h"

namespace qeli::test {

class ChannelTun final : public tunio::TunDevice {
 public:
  struct Packet {
    Bytes bytes;
    tunio::GsoMetadata meta;
  };

  ChannelTun() : efd_(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {}
  ~ChannelTun() override { ::close(efd_); }
  ChannelTun(const ChannelTun&) = delete;
  ChannelTun& operator=(const ChannelTun&) = delete;

  /// A packet the kernel routes into the tunnel (a super-packet with `meta`).
  void inject(ByteSpan packet, const tunio::GsoMetadata& meta = {}) {
    std::lock_guard lock(mu_);
    in_.push_back({Bytes(packet.begin(), packet.end()), meta});
    if (!signaled_) {
      const std::uint64_t one = 1;
      (void)!::write(efd_, &one, sizeof one);
      signaled_ = true;
    }
  }
  /// Packets injected and not yet read by the engine.
  std::size_t pending() const {
    std::lock_guard lock(mu_);
    return in_.size();
  }

  int fd() const override { return efd_; }
  Result<std::size_t, tunio::TunError> read_batch(tunio::PacketBatch& batch) override {
    std::lock_guard lock(mu_);
    std::size_t n = 0;
    while (!in_.empty() && !batch.full()) {
      const Packet& p = in_.front();
      if (p.bytes.size() <= batch.max_packet()) {
        batch.push(p.bytes, p.meta);
        ++n;
      } else {
        // Slots smaller than a super-packet: split it as a TUN read in split mode does
        // (all of it or, when the batch has too few free slots, later).
        auto m = tunio::revalidate(p.meta, p.bytes);
        if (!m.ok() || tunio::segment_count(*m, p.bytes.size()) > batch.free_slots()) break;
        const std::size_t before = batch.size();
        if (!tunio::gso_split_all(p.bytes, *m, batch).ok()) batch.truncate(before);
        n += batch.size() - before;
      }
      in_.pop_front();
    }
    if (in_.empty() && signaled_) {
      std::uint64_t v = 0;
      (void)!::read(efd_, &v, sizeof v);
      signaled_ = false;
    }
    if (n == 0) return fail(tunio::TunError::would_block);
    return n;
  }
  Result<tunio::WriteReport, tunio::TunError> write_batch(tunio::PacketBatch& batch) override {
    tunio::WriteReport r;
    {
      std::lock_guard lock(mu_);
      for (std::size_t i = batch.cursor(); i < batch.size(); batch.set_cursor(++i)) {
        if (batch.logical(i) == 0) continue;  // merged into an earlier packet (GRO)
        const auto p = batch.packet(i);
        // A super-packet that arrived whole stands for the segments it holds.
        const std::size_t logical =
            std::max<std::size_t>(batch.logical(i), tunio::segment_count(batch.meta(i), p.size()));
        out_.push_back({Bytes(p.begin(), p.end()), batch.meta(i)});
        r.logical_written += logical;
        logical_ += logical;
        ++r.syscalls;
      }
    }
    cv_.notify_all();
    return r;
  }

  /// Waits up to `d` until at least `n` logical packets were written; true if they were.
  bool wait_for(std::size_t n, std::chrono::milliseconds d) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, d, [&] { return logical_ >= n; });
  }
  std::size_t received_logical() const {
    std::lock_guard lock(mu_);
    return logical_;
  }
  /// What was written, as written (super-packets whole).
  std::vector<Packet> received() const {
    std::lock_guard lock(mu_);
    return {out_.begin(), out_.end()};
  }
  /// What was written, super-packets split into the packets they stand for (bad
  /// metadata: the packet is skipped).
  std::vector<Bytes> received_segments() const {
    std::vector<Bytes> out;
    tunio::PacketBatch segs(128, 65535);
    for (const Packet& p : received()) {
      if (p.meta.is_plain()) {
        out.push_back(p.bytes);
        continue;
      }
      auto m = tunio::revalidate(p.meta, p.bytes);
      if (!m.ok()) continue;
      segs.clear();
      if (!tunio::gso_split_all(p.bytes, *m, segs).ok()) continue;
      for (std::size_t i = 0; i < segs.size(); ++i) {
        out.emplace_back(segs.packet(i).begin(), segs.packet(i).end());
      }
    }
    return out;
  }
  void clear_received() {
    std::lock_guard lock(mu_);
    out_.clear();
    logical_ = 0;
  }

 private:
  const int efd_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Packet> in_;
  std::deque<Packet> out_;
  std::size_t logical_ = 0;
  bool signaled_ = false;
};

}  // namespace qeli::test
