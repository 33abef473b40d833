// HandleRegistry: the 64-bit handles libqeli gives out, checked by generation — a handle
// is (generation << 32) | (slot + 1), and a slot's generation moves on each time it is
// freed, so a freed handle, a handle from before a reuse, 0 or a made-up value all miss
// instead of reaching the wrong object (ABI 1.x "generation-checked handles").
//
// get() hands out a shared_ptr (a lease): a call in flight keeps its object alive across
// a concurrent remove(), so free during a blocked run is not a use after free.
// Threading: every method from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace qeli::ffi {

template <class T>
class HandleRegistry {
 public:
  explicit HandleRegistry(std::size_t max_slots) : max_slots_(max_slots) {}

  /// 0 when every slot is taken.
  std::uint64_t add(std::shared_ptr<T> obj) {
    std::lock_guard lock(mu_);
    std::size_t i = 0;
    while (i < slots_.size() && slots_[i].obj) ++i;
    if (i == slots_.size()) {
      if (slots_.size() >= max_slots_) return 0;
      slots_.push_back({});
    }
    slots_[i].obj = std::move(obj);
    return (std::uint64_t{slots_[i].generation} << 32) | (i + 1);
  }

  std::shared_ptr<T> get(std::uint64_t handle) const {
    std::lock_guard lock(mu_);
    const Slot* s = find(handle);
    return s ? s->obj : nullptr;
  }

  /// The object, now unreachable through `handle`; null if the handle was not valid.
  std::shared_ptr<T> remove(std::uint64_t handle) {
    std::lock_guard lock(mu_);
    Slot* s = const_cast<Slot*>(find(handle));
    if (s == nullptr) return nullptr;
    // Generation 0 is never issued, so a wrapped counter skips it.
    if (++s->generation == 0) s->generation = 1;
    return std::move(s->obj);
  }

 private:
  struct Slot {
    std::uint32_t generation = 1;
    std::shared_ptr<T> obj;
  };
  const Slot* find(std::uint64_t handle) const {
    const std::uint64_t index = handle & 0xffffffffU;
    if (index == 0 || index > slots_.size()) return nullptr;
    const Slot& s = slots_[index - 1];
    if (!s.obj || s.generation != static_cast<std::uint32_t>(handle >> 32)) return nullptr;
    return &s;
  }

  const std::size_t max_slots_;
  mutable std::mutex mu_;
  std::vector<Slot> slots_;
};

}  // namespace qeli::ffi
