// PacketPipe: the TUN of an app that has no TUN fd (iOS's packetFlow and the like; ABI 1.7
// `qeli_client_tun_push/pull`). The app pushes the packets it read from its platform into
// the uplink ring; the core's engine reads them as from a TUN. The engine's writes land in
// the downlink ring; the app pulls them out. Both rings are fixed slots of the tunnel MTU,
// allocated once per session: no allocation per packet.
//
// Full rings: a push takes what fits (the app retries the rest); a write from the engine
// into a full downlink ring drops the packet and counts it, as a kernel TUN whose queue
// is full does — the engine never waits on the app.
//
// Threading: push/pull from any thread, read_batch/write_batch from the engine's thread;
// one mutex guards both rings (the app moves packets in batches, so it is taken per batch).
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include <memory>

#include "tunio/offload_coalesce.h"
#include "tunio/packet_batch.h"
#include "tunio/tun_device.h"

namespace qeli::ffi {

/// A ring of `slots` packets of at most `slot_size` bytes each.
class SlotRing {
 public:
  SlotRing(std::size_t slots, std::size_t slot_size);
  bool full() const { return count_ == len_.size(); }
  bool empty() const { return count_ == 0; }
  std::size_t slot_size() const { return slot_size_; }
  /// Appends `n` bytes (n ≤ slot_size()); false when full.
  bool push(const std::uint8_t* data, std::size_t n);
  /// The oldest packet's bytes (not empty()).
  const std::uint8_t* front() const { return &buf_[head_ * slot_size_]; }
  std::size_t front_size() const { return len_[head_]; }
  void pop();

 private:
  std::size_t slot_size_;
  std::vector<std::uint8_t> buf_;
  std::vector<std::uint32_t> len_;
  std::size_t head_ = 0, count_ = 0;
};

struct PullResult {
  std::size_t packets = 0;
  std::size_t bytes = 0;
  std::size_t first_size = 0;  ///< the oldest packet's size when it did not fit
};

class PacketPipe final : public tunio::TunDevice {
 public:
  /// `mtu`: the largest packet either way; `ring_bytes`: each ring's budget (≥ 64 slots).
  /// `coalesce`: the session carries GSO super-packets (caps::kGsoSuperPackets), so what
  /// the engine reads is merged per TCP flow first (GRO, tunio/offload_coalesce.h) — one
  /// record per super-packet instead of one per packet, as a kernel TUN with offloads gives
  /// the daemon.
  explicit PacketPipe(std::size_t mtu, std::size_t ring_bytes = 4U << 20, bool coalesce = false);
  ~PacketPipe() override;
  PacketPipe(const PacketPipe&) = delete;
  PacketPipe& operator=(const PacketPipe&) = delete;

  std::size_t mtu() const { return mtu_; }
  /// Queues packets[0..count) (each already checked: 1..65535 bytes); how many it took,
  /// the first ones, up to a full ring. A packet over mtu() is taken and dropped, counted
  /// in dropped(): the rest of the batch goes on.
  std::size_t push(const std::uint8_t* data, const std::uint32_t* lengths, std::size_t count);
  /// Copies queued packets into `out` (`capacity` bytes, at most `max_packets`).
  PullResult pull(std::uint8_t* out, std::size_t capacity, std::uint32_t* lengths,
                  std::size_t max_packets);
  /// Packets dropped: the engine's writes into a full downlink ring, pushes over the MTU.
  std::uint64_t dropped() const;

  int fd() const override { return efd_; }
  Result<std::size_t, tunio::TunError> read_batch(tunio::PacketBatch& batch) override;
  Result<tunio::WriteReport, tunio::TunError> write_batch(tunio::PacketBatch& batch) override;

 private:
  void signal_locked();
  void drain_signal_locked();
  // One packet from the engine into the downlink ring: false when dropped.
  bool deliver_locked(ByteSpan packet);
  // GRO over what read_batch appended, then the merged packets dropped from the batch.
  void coalesce(tunio::PacketBatch& batch);

  const std::size_t mtu_;
  const int efd_;  // readable while the uplink ring holds packets
  mutable std::mutex mu_;
  SlotRing up_, down_;
  bool signaled_ = false;
  std::uint64_t dropped_ = 0;
  tunio::PacketBatch segments_;           // a super-packet split for the app (preallocated)
  std::unique_ptr<tunio::GroTable> gro_;  // set when coalescing
};

}  // namespace qeli::ffi
