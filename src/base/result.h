// Result<T, E>: a value or an error, for code that must not throw (the data path,
// parsers of hostile input). A small stand-in for C++23 std::expected.
//
// E is normally an `enum class` of reasons; the control plane may pair it with a detail
// string (see Error below). Accessing the wrong alternative is a bug and aborts.
#pragma once

#include <cstdlib>
#include <string>
#include <utility>
#include <variant>

namespace qeli {

template <class E>
struct Unexpected {
  E error;
};
template <class E>
Unexpected(E) -> Unexpected<E>;

template <class E>
Unexpected<E> fail(E e) {
  return Unexpected<E>{std::move(e)};
}

template <class T, class E>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}  // NOLINT implicit
  template <class E2>
  Result(Unexpected<E2> e) : v_(std::in_place_index<1>, E(std::move(e.error))) {}  // NOLINT

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & {
    if (!ok()) std::abort();
    return std::get<0>(v_);
  }
  const T& value() const& {
    if (!ok()) std::abort();
    return std::get<0>(v_);
  }
  T&& value() && {
    if (!ok()) std::abort();
    return std::get<0>(std::move(v_));
  }
  const E& error() const {
    if (ok()) std::abort();
    return std::get<1>(v_);
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, E> v_;
};

/// Result<void, E>.
template <class E>
class [[nodiscard]] Status {
 public:
  Status() = default;
  template <class E2>
  Status(Unexpected<E2> e) : err_(E(std::move(e.error))), ok_(false) {}  // NOLINT
  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const E& error() const {
    if (ok_) std::abort();
    return err_;
  }

 private:
  E err_{};
  bool ok_ = true;
};

/// A control-plane error: a reason code plus a human-readable detail.
template <class Code>
struct Error {
  Code code;
  std::string detail;
};

}  // namespace qeli
