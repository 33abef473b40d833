// A spdlog sink that appends formatted lines to a file and can open the same path again
// (logrotate renames the file, then qeli gets SIGHUP). The file is opened O_APPEND and
// each line is one write(2), so lines from several threads never interleave and a line
// is never half in the old file and half in the new one.
#pragma once

#include <spdlog/sinks/base_sink.h>

#include <mutex>
#include <string>

#include "base/result.h"

namespace qeli::sys {

class ReopenFileSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  /// Opens `path` (created 0640 if absent). Error: errno's text, naming the path.
  static Result<std::shared_ptr<ReopenFileSink>, std::string> open(const std::string& path);
  ~ReopenFileSink() override;

  /// Opens the path again; on failure the old descriptor stays in use.
  Status<std::string> reopen();
  const std::string& path() const { return path_; }

  explicit ReopenFileSink(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override;
  void flush_() override {}

 private:
  std::string path_;
  int fd_;
};

}  // namespace qeli::sys
