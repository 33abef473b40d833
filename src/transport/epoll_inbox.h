// EpollInbox<T>: the front door of a one-thread epoll loop (the REALITY gate, the decoy
// bridge): an epoll set, an eventfd registered in it under tag 0, and a queue other
// threads post items to. post() queues and wakes the loop; the loop calls wait(), which
// hands every ready fd's tag to `on_fd` and the queued items to `on_items`.
//
// Tags are the epoll_data.u64 of the registered fds; 0 is the inbox's own.
#pragma once

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "transport/unique_fd.h"

namespace qeli::transport {

template <class T>
class EpollInbox {
 public:
  /// Creates the epoll set and the eventfd. Error: the syscall that failed.
  Status<std::string> open() {
    epoll_ = UniqueFd(::epoll_create1(EPOLL_CLOEXEC));
    wake_ = UniqueFd(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
    if (!epoll_.valid() || !wake_.valid()) return fail(std::string(std::strerror(errno)));
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = 0;
    if (::epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, wake_.get(), &ev) != 0) {
      return fail(std::string("epoll_ctl: ") + std::strerror(errno));
    }
    return {};
  }
  int epoll_fd() const { return epoll_.get(); }

  /// Any thread: queue `item` and wake the loop.
  void post(T item) {
    {
      std::lock_guard lock(mu_);
      queue_.push_back(std::move(item));
    }
    wake();
  }
  /// Any thread: wake the loop without an item (e.g. to make it see a stop flag).
  void wake() {
    const std::uint64_t one = 1;
    (void)::write(wake_.get(), &one, sizeof one);
  }
  /// The loop: takes what is still queued (at the end, to release it).
  std::vector<T> take() {
    std::lock_guard lock(mu_);
    return std::exchange(queue_, {});
  }

  /// The loop: one epoll_wait of up to `timeout_ms`. Returns false on an epoll error.
  template <class OnFd, class OnItems>
  bool wait(std::span<epoll_event> events, int timeout_ms, OnFd&& on_fd, OnItems&& on_items) {
    const int n =
        ::epoll_wait(epoll_.get(), events.data(), static_cast<int>(events.size()), timeout_ms);
    if (n < 0) return errno == EINTR;
    for (int i = 0; i < n; ++i) {
      const std::uint64_t tag = events[static_cast<std::size_t>(i)].data.u64;
      if (tag != 0) {
        on_fd(tag);
        continue;
      }
      std::uint64_t v;
      (void)::read(wake_.get(), &v, sizeof v);
      on_items(take());
    }
    return true;
  }

 private:
  UniqueFd epoll_, wake_;
  std::mutex mu_;
  std::vector<T> queue_;
};

}  // namespace qeli::transport
