// CounterSet: a closed set of monotonic counters indexed by an enum, with ONE constexpr
// table of names and help strings per set (STYLE.md practice 11), so logs, the control
// socket and a metrics endpoint iterate the same list instead of each naming the
// counters by hand.
//
//   enum class Foo : std::uint8_t { kA, kB, kCount };
//   constexpr std::array<CounterInfo, 2> kFooInfo{{{"a", "what a counts"}, {"b", ...}}};
//   constexpr const CounterInfo& counter_info(Foo f) { return kFooInfo[index(f)]; }  // ADL
//   CounterSet<Foo> c;  c.add(Foo::kA);  for_each_counter(c, [](info, value) { ... });
//
// Written by any thread, read by any thread: relaxed atomics (counters, not
// synchronisation).
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace qeli {

struct CounterInfo {
  std::string_view name;  ///< snake_case, stable: logs, control API and metric names
  std::string_view help;  ///< one line for humans
};

template <typename E>
constexpr std::size_t counter_index(E e) {
  return static_cast<std::size_t>(e);
}

template <typename E>
class CounterSet {
 public:
  static constexpr std::size_t kSize = static_cast<std::size_t>(E::kCount);

  void add(E e, std::uint64_t n = 1) {
    v_[counter_index(e)].fetch_add(n, std::memory_order_relaxed);
  }
  std::uint64_t get(E e) const { return v_[counter_index(e)].load(std::memory_order_relaxed); }
  std::uint64_t total() const {
    std::uint64_t t = 0;
    for (const auto& c : v_) t += c.load(std::memory_order_relaxed);
    return t;
  }

 private:
  std::array<std::atomic<std::uint64_t>, kSize> v_{};
};

/// Calls f(const CounterInfo&, E, std::uint64_t value) for every counter of `set`, in
/// enum order. counter_info(E) is found by argument-dependent lookup.
template <typename E, typename F>
void for_each_counter(const CounterSet<E>& set, F&& f) {
  for (std::size_t i = 0; i < CounterSet<E>::kSize; ++i) {
    const E e = static_cast<E>(i);
    f(counter_info(e), e, set.get(e));
  }
}

}  // namespace qeli
