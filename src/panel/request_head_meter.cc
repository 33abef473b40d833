#include "panel/request_head_meter.h"

namespace qeli::panel {

RequestHeadMeter::Verdict RequestHeadMeter::feed(std::string_view bytes, std::size_t* used) {
  *used = 0;
  if (refused_ != Verdict::kMore) return refused_;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const char c = bytes[i];
    if (++total_ > kMaxHead) return refused_ = Verdict::kTooLarge;
    if (++line_ > kMaxHeadLine) return refused_ = Verdict::kLineTooLong;
    if (c != '\n') {
      cr_ = c == '\r';
      continue;
    }
    // "\r\n" alone after the request line: the empty line that ends the head.
    const bool blank = line_ == 2 && cr_ && lines_ > 0;
    line_ = 0;
    cr_ = false;
    if (blank) {
      *used = i + 1;
      return Verdict::kDone;
    }
    // The request line is the first; the others are fields.
    if (++lines_ > kMaxHeaderFields + 1) return refused_ = Verdict::kTooManyFields;
  }
  *used = bytes.size();
  return Verdict::kMore;
}

}  // namespace qeli::panel
