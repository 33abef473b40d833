#include "sys/reopen_file_sink.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace qeli::sys {
namespace {

Result<int, std::string> open_append(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY, 0640);
  if (fd < 0) return fail("cannot open log file " + path + ": " + std::strerror(errno));
  return fd;
}

}  // namespace

Result<std::shared_ptr<ReopenFileSink>, std::string> ReopenFileSink::open(const std::string& path) {
  auto fd = open_append(path);
  if (!fd.ok()) return fail(fd.error());
  return std::make_shared<ReopenFileSink>(path, *fd);
}

ReopenFileSink::~ReopenFileSink() {
  if (fd_ >= 0) ::close(fd_);
}

Status<std::string> ReopenFileSink::reopen() {
  auto fd = open_append(path_);
  if (!fd.ok()) return fail(fd.error());
  std::lock_guard<std::mutex> lock(mutex_);
  ::close(fd_);
  fd_ = *fd;
  return {};
}

void ReopenFileSink::sink_it_(const spdlog::details::log_msg& msg) {
  spdlog::memory_buf_t line;
  formatter_->format(msg, line);
  const char* p = line.data();
  std::size_t left = line.size();
  while (left > 0) {
    const ssize_t n = ::write(fd_, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // a full disk loses the line, never the process
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

}  // namespace qeli::sys
