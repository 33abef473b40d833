// PacketBatch: a fixed number of packet slots in ONE contiguous buffer allocated at
// construction, with per-packet offset, length, offload metadata and logical count.
//
// Slot layout (stride = headroom + max_packet + tailroom, rounded up to 64 bytes):
//   [ headroom | packet bytes (<= max_packet) | tailroom ]
// Packets start `headroom` bytes into their slot, so later layers can frame and seal in
// place (prepend()). Nothing on the hot path allocates: push, clear, swap and the offload
// functions only move bytes and indexes.
//
// Ownership: the batch owns every byte; spans returned by packet()/next_slot() stay valid
// until the batch is destroyed (never reallocated) but their CONTENTS belong to whoever
// currently fills the batch. Not thread-safe; hand a batch between threads as a whole.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "base/bytes.h"
#include "tunio/gso_metadata.h"

namespace qeli::tunio {

class PacketBatch {
 public:
  /// `capacity` packets of at most `max_packet` bytes each, `headroom` bytes before and
  /// `tailroom` bytes after every packet. capacity >= 1, max_packet >= 1; aborts on a
  /// size overflow (a configuration bug, not input).
  PacketBatch(std::size_t capacity, std::size_t max_packet, std::size_t headroom = 0,
              std::size_t tailroom = 0);
  PacketBatch(const PacketBatch&) = delete;
  PacketBatch& operator=(const PacketBatch&) = delete;
  PacketBatch(PacketBatch&&) = default;
  PacketBatch& operator=(PacketBatch&&) = default;

  std::size_t capacity() const { return capacity_; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  bool full() const { return size_ == capacity_; }
  std::size_t free_slots() const { return capacity_ - size_; }
  std::size_t max_packet() const { return max_packet_; }
  std::size_t headroom() const { return headroom_; }
  std::size_t tailroom() const { return tailroom_; }

  /// Empties the batch (keeps the memory; slot order is restored).
  void clear();
  /// Drops packets [n, size()) (n <= size()); their slots become free again.
  void truncate(std::size_t n) {
    if (n < size_) size_ = n;
  }

  /// The writable area (max_packet bytes) of the next free slot. Precondition: !full().
  MutableByteSpan next_slot();
  /// Appends the packet written into next_slot(): `len` <= max_packet bytes. `logical` is
  /// how many IP packets it stands for (a super-packet's segment count).
  void commit(std::size_t len, const GsoMetadata& meta = {}, std::uint32_t logical = 1);
  /// Copies `packet` into the next slot. False (and nothing changes) if the batch is full
  /// or the packet is longer than max_packet.
  bool push(ByteSpan packet, const GsoMetadata& meta = {});

  MutableByteSpan packet(std::size_t i);
  ByteSpan packet(std::size_t i) const;
  GsoMetadata& meta(std::size_t i) {
    touch(i);
    return desc_[i].meta;
  }
  const GsoMetadata& meta(std::size_t i) const { return desc_[i].meta; }
  /// IP packets packet i stands for: 1 normally, the segment count of a super-packet, the
  /// number of packets merged into it after GRO, 0 if it was merged into another packet.
  std::uint32_t logical(std::size_t i) const { return desc_[i].logical; }
  void set_logical(std::size_t i, std::uint32_t n) {
    touch(i);
    desc_[i].logical = n;
  }

  /// Bytes available after packet i's end inside its slot (growth room for GRO).
  std::size_t room_after(std::size_t i) const;
  /// Bytes available before packet i's start inside its slot (headroom left).
  std::size_t room_before(std::size_t i) const;
  /// Sets packet i's length (<= its length + room_after(i)).
  void set_length(std::size_t i, std::size_t len);
  /// Extends packet i by `n` bytes at the front (n <= room_before(i)) and returns the new
  /// bytes; used to frame in place.
  MutableByteSpan prepend(std::size_t i, std::size_t n);
  /// Removes `n` bytes from the front of packet i (n <= its length).
  void trim_front(std::size_t i, std::size_t n);
  /// Exchanges the slots (bytes, metadata, counts) of packets i and j: only indexes move.
  void swap(std::size_t i, std::size_t j);

  /// Write-side progress for partial writes (see LinuxTun::write_batch): packets before
  /// cursor() are done. coalesced() is set once GRO has run on this content.
  std::size_t cursor() const { return cursor_; }
  void set_cursor(std::size_t c) { cursor_ = c; }
  bool coalesced() const { return coalesced_; }
  void set_coalesced(bool v) { coalesced_ = v; }

 private:
  struct Desc {
    std::uint32_t offset;  // absolute offset of the first packet byte in buf_
    std::uint32_t length;
    std::uint32_t logical;
    GsoMetadata meta;
  };
  std::size_t slot_begin(std::size_t i) const;
  void touch(std::size_t i) {
    if (i >= touched_) touched_ = i + 1;
  }

  std::size_t capacity_;
  std::size_t max_packet_;
  std::size_t headroom_;
  std::size_t tailroom_;
  std::size_t stride_;
  std::size_t size_ = 0;
  std::size_t touched_ = 0;  // descriptors [0, touched_) may differ from their initial state
  std::size_t cursor_ = 0;
  bool coalesced_ = false;
  std::unique_ptr<std::uint8_t[]> buf_;
  std::unique_ptr<Desc[]> desc_;
};

}  // namespace qeli::tunio
