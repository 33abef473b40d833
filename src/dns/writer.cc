#include "dns/writer.h"

#include <algorithm>
#include <cstring>

#include "base/endian.h"
#include "dns/limits.h"

namespace qeli::dns {
namespace {

// The header of an answer to `query`: its ID, opcode and RD; QR and RA set.
void answer_header(Bytes& out, ByteSpan query, Rcode rcode, std::uint16_t qd, std::uint16_t an) {
  const std::uint16_t qflags = load_be16(query.data() + 2);
  const auto flags =
      static_cast<std::uint16_t>(flag::kQr | (qflags & 0x7800) | (qflags & flag::kRd) | flag::kRa |
                                 static_cast<std::uint16_t>(rcode));
  out.resize(kHeaderSize);
  std::memcpy(out.data(), query.data(), 2);
  store_be16(out.data() + 2, flags);
  store_be16(out.data() + 4, qd);
  store_be16(out.data() + 6, an);
  store_be16(out.data() + 8, 0);
  store_be16(out.data() + 10, 0);
}

}  // namespace

Bytes error_reply(ByteSpan query, const Query* q, Rcode rcode) {
  Bytes out;
  answer_header(out, query, rcode, q != nullptr ? 1 : 0, 0);
  if (q != nullptr) {
    out.insert(out.end(), query.begin() + kHeaderSize, query.begin() + q->question_end);
  }
  return out;
}

Bytes blocked_reply(ByteSpan query, const Query& q) {
  const bool a = q.question.qtype == rrtype::kA && q.question.qclass == kClassIn;
  Bytes out;
  answer_header(out, query, Rcode::kNoError, 1, a ? 1 : 0);
  out.insert(out.end(), query.begin() + kHeaderSize, query.begin() + q.question_end);
  if (a) {
    // NAME = pointer to the question (offset 12), TYPE A, CLASS IN, TTL, RDLENGTH 4, 0.0.0.0
    const std::uint8_t rr[] = {0xC0,
                               0x0C,
                               0,
                               rrtype::kA,
                               0,
                               kClassIn,
                               static_cast<std::uint8_t>(kBlockedTtl >> 24),
                               static_cast<std::uint8_t>(kBlockedTtl >> 16),
                               static_cast<std::uint8_t>(kBlockedTtl >> 8),
                               static_cast<std::uint8_t>(kBlockedTtl),
                               0,
                               4,
                               0,
                               0,
                               0,
                               0};
    out.insert(out.end(), std::begin(rr), std::end(rr));
  }
  return out;
}

void address_reply(MutableByteSpan reply, std::size_t reply_question_end, ByteSpan query,
                   const Query& q) {
  std::memcpy(reply.data(), query.data(), 2);
  std::uint16_t flags = load_be16(reply.data() + 2);
  flags = static_cast<std::uint16_t>((flags & ~flag::kRd) | (q.header.flags & flag::kRd));
  store_be16(reply.data() + 2, flags);
  if (reply_question_end == q.question_end) {
    std::memcpy(reply.data() + kHeaderSize, query.data() + kHeaderSize,
                q.question_end - kHeaderSize);
  }
}

Bytes truncated_reply(ByteSpan reply, std::size_t question_end) {
  Bytes out(reply.begin(), reply.begin() + static_cast<std::ptrdiff_t>(question_end));
  store_be16(out.data() + 2, static_cast<std::uint16_t>(load_be16(out.data() + 2) | flag::kTc));
  store_be16(out.data() + 6, 0);
  store_be16(out.data() + 8, 0);
  store_be16(out.data() + 10, 0);
  return out;
}

void age_ttls(MutableByteSpan msg, std::span<const std::uint32_t> ttl_offsets,
              std::uint32_t elapsed_secs) {
  for (const std::uint32_t at : ttl_offsets) {
    const std::uint32_t ttl = load_be32(msg.data() + at);
    store_be32(msg.data() + at, ttl > elapsed_secs ? ttl - elapsed_secs : 0);
  }
}

void set_id(MutableByteSpan msg, std::uint16_t id) { store_be16(msg.data(), id); }

}  // namespace qeli::dns
