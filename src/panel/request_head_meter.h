// RequestHeadMeter: the bounds of one HTTP/1.1 request head, checked byte by byte as the
// listener hands the bytes to cpp-httplib (panel/http_listener.cc), so that no more than
// these bounds is ever read or held for a head — cpp-httplib 0.11 itself reads a header
// line whole before it judges its length, and every line before it counts them.
//
//   * a line (the request line included) at most kMaxHeadLine bytes with its CRLF;
//   * at most kMaxHeaderFields header lines;
//   * at most kMaxHead bytes in all.
//
// The head ends with an empty line, "\r\n" (what cpp-httplib 0.11 takes as the end: a
// line that does not end in CRLF is skipped by it, so here it is just a line). Pure: bytes
// in, a verdict out (tested with tables: tests/unit/panel/request_head_meter_test.cc).
#pragma once

#include <cstddef>
#include <string_view>

namespace qeli::panel {

inline constexpr std::size_t kMaxHeadLine = 8 * 1024;
inline constexpr std::size_t kMaxHeaderFields = 64;
inline constexpr std::size_t kMaxHead = 32 * 1024;

class RequestHeadMeter {
 public:
  enum class Verdict {
    kMore,           ///< all of it is head; the head goes on
    kDone,           ///< the head ended within it (used: how many of its bytes are head)
    kLineTooLong,    ///< a line passed kMaxHeadLine
    kTooManyFields,  ///< a header line past kMaxHeaderFields
    kTooLarge,       ///< the head passed kMaxHead
  };

  /// Counts `bytes` as the head's next ones. On kDone `*used` is the number of them up to
  /// and including the empty line (the rest is the body or the next request); a refusal
  /// leaves the meter refusing. After kDone, start() begins the next request's head.
  Verdict feed(std::string_view bytes, std::size_t* used);
  void start() { *this = RequestHeadMeter{}; }
  /// Bytes counted since start() (the head so far).
  std::size_t size() const { return total_; }

 private:
  std::size_t total_ = 0;  ///< head bytes so far
  std::size_t line_ = 0;   ///< bytes of the current line so far
  std::size_t lines_ = 0;  ///< complete lines so far (the request line is the first)
  bool cr_ = false;        ///< the current line's last byte was '\r'
  Verdict refused_ = Verdict::kMore;
};

}  // namespace qeli::panel
