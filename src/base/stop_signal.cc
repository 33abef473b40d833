#include "base/stop_signal.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>

namespace qeli {

StopSignal::StopSignal() : fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
  if (fd_ < 0) std::abort();
}
StopSignal::~StopSignal() { ::close(fd_); }

void StopSignal::stop() {
  stopped_.store(true, std::memory_order_release);
  const std::uint64_t one = 1;
  [[maybe_unused]] auto n = ::write(fd_, &one, sizeof(one));
}

}  // namespace qeli
