#include "ffi/packet_pipe.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "tunio/offload_split.h"
#include "tunio/offload_validate.h"

namespace qeli::ffi {

namespace {
// A super-packet is at most 64 KiB: with the smallest sane segment (576 bytes) that is
// 114 segments, so 128 slots take any of them whole.
constexpr std::size_t kSplitSlots = 128;
constexpr std::size_t kMinSlots = 64;
// The engine's reads take at most this many packets at a time (its batches are smaller).
constexpr std::size_t kGroPackets = 256;
// Merging needs room for a super-packet in a slot: the engine's keep-whole slots.
constexpr std::size_t kGroMinSlot = 65535;
}  // namespace

SlotRing::SlotRing(std::size_t slots, std::size_t slot_size)
    : slot_size_(slot_size), buf_(slots * slot_size), len_(slots) {}

bool SlotRing::push(const std::uint8_t* data, std::size_t n) {
  if (full() || n > slot_size_) return false;
  const std::size_t tail = (head_ + count_) % len_.size();
  std::memcpy(&buf_[tail * slot_size_], data, n);
  len_[tail] = static_cast<std::uint32_t>(n);
  ++count_;
  return true;
}

void SlotRing::pop() {
  head_ = (head_ + 1) % len_.size();
  --count_;
}

PacketPipe::PacketPipe(std::size_t mtu, std::size_t ring_bytes, bool coalesce)
    : mtu_(mtu),
      efd_(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)),
      up_(std::max(kMinSlots, ring_bytes / mtu), mtu),
      down_(std::max(kMinSlots, ring_bytes / mtu), mtu),
      segments_(kSplitSlots, mtu) {
  if (coalesce) gro_ = std::make_unique<tunio::GroTable>(kGroPackets);
}

PacketPipe::~PacketPipe() {
  if (efd_ >= 0) ::close(efd_);
}

void PacketPipe::signal_locked() {
  if (signaled_) return;
  const std::uint64_t one = 1;
  (void)!::write(efd_, &one, sizeof one);
  signaled_ = true;
}

void PacketPipe::drain_signal_locked() {
  if (!signaled_) return;
  std::uint64_t v = 0;
  (void)!::read(efd_, &v, sizeof v);
  signaled_ = false;
}

std::size_t PacketPipe::push(const std::uint8_t* data, const std::uint32_t* lengths,
                             std::size_t count) {
  std::lock_guard lock(mu_);
  std::size_t taken = 0;
  for (; taken < count; ++taken) {
    if (lengths[taken] > mtu_) {
      ++dropped_;  // taken, and dropped alone (as a TUN drops a packet over its MTU)
    } else if (!up_.push(data, lengths[taken])) {
      break;
    }
    data += lengths[taken];
  }
  if (!up_.empty()) signal_locked();
  return taken;
}

PullResult PacketPipe::pull(std::uint8_t* out, std::size_t capacity, std::uint32_t* lengths,
                            std::size_t max_packets) {
  std::lock_guard lock(mu_);
  PullResult r;
  while (!down_.empty() && r.packets < max_packets) {
    const std::size_t n = down_.front_size();
    if (n > capacity - r.bytes) {
      if (r.packets == 0) r.first_size = n;
      break;
    }
    std::memcpy(out + r.bytes, down_.front(), n);
    lengths[r.packets++] = static_cast<std::uint32_t>(n);
    r.bytes += n;
    down_.pop();
  }
  return r;
}

std::uint64_t PacketPipe::dropped() const {
  std::lock_guard lock(mu_);
  return dropped_;
}

Result<std::size_t, tunio::TunError> PacketPipe::read_batch(tunio::PacketBatch& batch) {
  std::lock_guard lock(mu_);
  std::size_t n = 0;
  while (!up_.empty() && !batch.full()) {
    // Pushes were checked against the MTU; the engine's slots are at least that large.
    if (up_.front_size() <= batch.max_packet()) {
      batch.push(ByteSpan(up_.front(), up_.front_size()));
      ++n;
    } else {
      ++dropped_;
    }
    up_.pop();
  }
  if (up_.empty()) drain_signal_locked();
  if (n == 0) return fail(tunio::TunError::would_block);
  if (gro_ && n > 1) {
    const std::size_t before = batch.size();
    coalesce(batch);
    n -= before - batch.size();
  }
  return n;
}

void PacketPipe::coalesce(tunio::PacketBatch& batch) {
  if (batch.size() > gro_->capacity() || batch.max_packet() < kGroMinSlot) return;
  const tunio::GroStats st = tunio::gro_coalesce(batch, tunio::GroOptions{}, *gro_);
  if (st.merged == 0) return;
  std::size_t keep = 0;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    if (batch.logical(i) == 0) continue;  // folded into its group's head
    if (keep != i) batch.swap(keep, i);
    ++keep;
  }
  batch.truncate(keep);
}

bool PacketPipe::deliver_locked(ByteSpan packet) {
  if (!down_.push(packet.data(), packet.size())) {
    ++dropped_;
    return false;
  }
  return true;
}

Result<tunio::WriteReport, tunio::TunError> PacketPipe::write_batch(tunio::PacketBatch& batch) {
  tunio::WriteReport r;
  std::lock_guard lock(mu_);
  for (std::size_t i = batch.cursor(); i < batch.size(); batch.set_cursor(++i)) {
    if (batch.logical(i) == 0) continue;  // merged into an earlier packet (GRO)
    ++r.syscalls;
    const tunio::GsoMetadata& meta = batch.meta(i);
    auto packet = batch.packet(i);
    if (meta.is_plain()) {
      (deliver_locked(packet) ? r.logical_written : r.logical_dropped) += 1;
      continue;
    }
    // The app has no offload: a super-packet goes out as the packets it stands for, a
    // packet with a partial checksum goes out with the checksum finished.
    auto m = tunio::revalidate(meta, packet);
    if (!m.ok()) {
      ++r.logical_dropped;
      ++dropped_;
      continue;
    }
    if (m->type == tunio::GsoType::none) {
      const bool ok = tunio::finish_partial_checksum(packet, *m) && deliver_locked(packet);
      (ok ? r.logical_written : r.logical_dropped) += 1;
      continue;
    }
    segments_.clear();
    if (!tunio::gso_split_all(packet, *m, segments_).ok()) {
      r.logical_dropped += tunio::segment_count(*m, packet.size());
      ++dropped_;
      continue;
    }
    for (std::size_t s = 0; s < segments_.size(); ++s) {
      (deliver_locked(segments_.packet(s)) ? r.logical_written : r.logical_dropped) += 1;
    }
  }
  return r;
}

}  // namespace qeli::ffi
