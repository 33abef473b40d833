#include "engine/stop_signal.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>

namespace qeli::engine {

Notifier::Notifier() : fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
  if (fd_ < 0) std::abort();
}
Notifier::~Notifier() { ::close(fd_); }

void Notifier::notify() {
  const std::uint64_t one = 1;
  [[maybe_unused]] auto n = ::write(fd_, &one, sizeof(one));
}

void Notifier::drain() {
  std::uint64_t v = 0;
  [[maybe_unused]] auto n = ::read(fd_, &v, sizeof(v));
}

}  // namespace qeli::engine
