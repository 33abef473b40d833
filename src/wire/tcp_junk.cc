#include "wire/tcp_junk.h"

#include <algorithm>

namespace qeli::wire {

JunkPlan JunkPlan::from_config(bool enabled, std::uint32_t jc, std::uint32_t jmin,
                               std::uint32_t jmax) {
  JunkPlan p;
  p.count = enabled ? std::min<std::uint32_t>(jc, kJunkMaxCount) : 0;
  const auto hi = static_cast<std::uint16_t>(std::min<std::uint32_t>(jmax, kJunkMaxLen));
  p.max_len = hi;
  p.min_len = static_cast<std::uint16_t>(std::min<std::uint32_t>(jmin, hi));
  return p;
}

std::size_t JunkPlan::pick_len(crypto::Rng& rng) const {
  return min_len >= max_len ? min_len : rng.uniform(min_len, max_len);
}

Bytes build_tcp_junk(const JunkPlan& plan, crypto::Rng& rng) {
  Bytes out;
  for (std::uint32_t i = 0; i < plan.count; ++i) {
    const std::size_t len = plan.pick_len(rng);
    const std::size_t at = out.size();
    out.resize(at + 2 + len);
    out[at] = static_cast<std::uint8_t>(len >> 8);
    out[at + 1] = static_cast<std::uint8_t>(len);
    rng.fill(MutableByteSpan(out.data() + at + 2, len));
  }
  return out;
}

std::size_t TcpJunkReader::feed(ByteSpan in) {
  std::size_t used = 0;
  while (left_ > 0 && !error_ && used < in.size()) {
    if (len_bytes_ < 2) {
      len_ = static_cast<std::uint16_t>((len_ << 8) | in[used++]);
      if (++len_bytes_ == 2) {
        if (len_ > kJunkMaxLen) {
          error_ = true;
          break;
        }
        body_left_ = len_;
      }
    } else {
      const std::size_t n = std::min(body_left_, in.size() - used);
      used += n;
      body_left_ -= n;
    }
    if (len_bytes_ == 2 && body_left_ == 0) {  // one record done
      --left_;
      len_bytes_ = 0;
      len_ = 0;
    }
  }
  return used;
}

}  // namespace qeli::wire
