// RecordQueue: the sealed records of one send, in order, as spans into the caller's batch
// or the sealer's private buffers, each with its CarrierRoom head/tail around it. A fixed
// capacity allocated once; the sealer stops (SealStatus::kMore) when it is full.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "base/bytes.h"

namespace qeli::tunnel {

class RecordQueue {
 public:
  explicit RecordQueue(std::size_t capacity = 1024) : items_(capacity) {}
  bool full() const { return size_ == items_.size(); }
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  std::size_t capacity() const { return items_.size(); }
  std::size_t room() const { return items_.size() - size_; }
  void push(MutableByteSpan record) { items_[size_++] = record; }  // precondition !full()
  void clear() { size_ = 0; }
  /// The records (mutable: a stream layer widens each span to its frame when writing).
  std::span<MutableByteSpan> records() { return {items_.data(), size_}; }
  MutableByteSpan operator[](std::size_t i) const { return items_[i]; }

 private:
  std::vector<MutableByteSpan> items_;
  std::size_t size_ = 0;
};

}  // namespace qeli::tunnel
