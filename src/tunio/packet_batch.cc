#include "tunio/packet_batch.h"

#include <cstdlib>
#include <cstring>
#include <limits>
#include <utility>

namespace qeli::tunio {

PacketBatch::PacketBatch(std::size_t capacity, std::size_t max_packet, std::size_t headroom,
                         std::size_t tailroom)
    : capacity_(capacity), max_packet_(max_packet), headroom_(headroom), tailroom_(tailroom) {
  if (capacity == 0 || max_packet == 0) std::abort();
  stride_ = (headroom + max_packet + tailroom + 1 + 63) / 64 * 64;
  // Offsets are 32-bit; a batch larger than 4 GiB is a configuration bug.
  if (stride_ > std::numeric_limits<std::uint32_t>::max() / capacity) std::abort();
  // Not zero-filled: a batch is sized for the largest burst (up to 64 KiB super-packets)
  // but an idle session touches none of it, so untouched pages never become resident
  // (8 MiB → ~0 per idle session). Every reader reads only bytes a writer committed;
  // record padding is zeroed explicitly by the codec.
  buf_ = std::make_unique_for_overwrite<std::uint8_t[]>(stride_ * capacity);
  desc_ = std::make_unique<Desc[]>(capacity);
  clear();
}

void PacketBatch::clear() {
  for (std::size_t i = 0; i < capacity_; ++i) {
    desc_[i] = Desc{static_cast<std::uint32_t>(i * stride_ + headroom_), 0, 0, {}};
  }
  size_ = 0;
  cursor_ = 0;
  coalesced_ = false;
}

MutableByteSpan PacketBatch::next_slot() {
  if (full()) std::abort();
  Desc& d = desc_[size_];
  d.offset = static_cast<std::uint32_t>(slot_begin(size_) + headroom_);
  return {buf_.get() + d.offset, max_packet_};
}

void PacketBatch::commit(std::size_t len, const GsoMetadata& meta, std::uint32_t logical) {
  if (full() || len > max_packet_) std::abort();
  Desc& d = desc_[size_];
  d.length = static_cast<std::uint32_t>(len);
  d.meta = meta;
  d.logical = logical;
  ++size_;
}

bool PacketBatch::push(ByteSpan packet, const GsoMetadata& meta) {
  if (full() || packet.size() > max_packet_) return false;
  MutableByteSpan slot = next_slot();
  if (!packet.empty()) std::memcpy(slot.data(), packet.data(), packet.size());
  commit(packet.size(), meta);
  return true;
}

MutableByteSpan PacketBatch::packet(std::size_t i) {
  return {buf_.get() + desc_[i].offset, desc_[i].length};
}
ByteSpan PacketBatch::packet(std::size_t i) const {
  return {buf_.get() + desc_[i].offset, desc_[i].length};
}

std::size_t PacketBatch::slot_begin(std::size_t i) const {
  // Slots move with swap(), so the slot of packet i is found from its offset (which never
  // reaches the slot's end: the stride has at least one spare byte).
  return desc_[i].offset / stride_ * stride_;
}

std::size_t PacketBatch::room_after(std::size_t i) const {
  const std::size_t end = slot_begin(i) + headroom_ + max_packet_;
  return end - (desc_[i].offset + desc_[i].length);
}

std::size_t PacketBatch::room_before(std::size_t i) const {
  return desc_[i].offset - slot_begin(i);
}

void PacketBatch::set_length(std::size_t i, std::size_t len) {
  if (len > desc_[i].length + room_after(i)) std::abort();
  desc_[i].length = static_cast<std::uint32_t>(len);
}

MutableByteSpan PacketBatch::prepend(std::size_t i, std::size_t n) {
  if (n > room_before(i)) std::abort();
  desc_[i].offset -= static_cast<std::uint32_t>(n);
  desc_[i].length += static_cast<std::uint32_t>(n);
  return {buf_.get() + desc_[i].offset, n};
}

void PacketBatch::trim_front(std::size_t i, std::size_t n) {
  if (n > desc_[i].length) std::abort();
  desc_[i].offset += static_cast<std::uint32_t>(n);
  desc_[i].length -= static_cast<std::uint32_t>(n);
}

void PacketBatch::swap(std::size_t i, std::size_t j) { std::swap(desc_[i], desc_[j]); }

}  // namespace qeli::tunio
