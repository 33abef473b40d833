// TunDevice: one TUN queue as the data plane sees it — an fd to poll and batched,
// non-blocking reads and writes (LinuxTun's contract, linux_tun.h: reads append to the
// batch; writes resume from batch.cursor() after would_block and report LOGICAL packets).
// The engine takes a TunDevice&, never a LinuxTun&, so the same loops run over
//   * a queue of a LinuxTun we opened (TunQueue),
//   * a TUN fd someone else opened and handed over (a phone's VPN service: FdTun),
//   * a channel in memory (tests/fakes/channel_tun.h).
// Threading: one reader and one writer at a time (a queue is not shared without a lock).
#pragma once

#include <cstddef>

#include "base/result.h"
#include "tunio/linux_tun.h"
#include "tunio/packet_batch.h"

namespace qeli::tunio {

class TunDevice {
 public:
  virtual ~TunDevice() = default;
  /// Readable (POLLIN) when read_batch() may have packets; writable (POLLOUT) when a
  /// write that reported would_block may go on.
  virtual int fd() const = 0;
  virtual Result<std::size_t, TunError> read_batch(PacketBatch& batch) = 0;
  virtual Result<WriteReport, TunError> write_batch(PacketBatch& batch) = 0;
};

/// Queue q of a LinuxTun (which must outlive it).
class TunQueue final : public TunDevice {
 public:
  TunQueue(LinuxTun& tun, std::size_t queue) : tun_(&tun), queue_(queue) {}
  int fd() const override { return tun_->fd(queue_); }
  Result<std::size_t, TunError> read_batch(PacketBatch& batch) override {
    return tun_->read_batch(queue_, batch);
  }
  Result<WriteReport, TunError> write_batch(PacketBatch& batch) override {
    return tun_->write_batch(queue_, batch);
  }

 private:
  LinuxTun* tun_;
  std::size_t queue_;
};

/// A TUN fd adopted from someone else (LinuxTun::adopt: plain TUN, no vnet header).
class FdTun final : public TunDevice {
 public:
  /// Takes ownership of `fd` (closed on failure too).
  static Result<FdTun, Error<TunError>> adopt(int fd, const TunConfig& config) {
    auto tun = LinuxTun::adopt(fd, config);
    if (!tun.ok()) return fail(tun.error());
    return FdTun(std::move(*tun));
  }
  int fd() const override { return tun_.fd(0); }
  Result<std::size_t, TunError> read_batch(PacketBatch& batch) override {
    return tun_.read_batch(0, batch);
  }
  Result<WriteReport, TunError> write_batch(PacketBatch& batch) override {
    return tun_.write_batch(0, batch);
  }
  const LinuxTun& tun() const { return tun_; }

 private:
  explicit FdTun(LinuxTun tun) : tun_(std::move(tun)) {}
  LinuxTun tun_;
};

}  // namespace qeli::tunio
