// The DNS message reader on hostile bytes, as a query and as a response, plus every
// writer over what parsed. Invariants (beyond "no crash"): offsets stay inside the
// message, what the writers produce from a parsed message parses again with the same
// question, and a cached answer comes back.
#include <cstdint>
#include <cstdlib>

#include "dns/cache.h"
#include "dns/message.h"
#include "dns/writer.h"

using namespace qeli;
using namespace qeli::dns;

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const ByteSpan in(data, size);
  if (auto q = parse_query(in); q.ok()) {
    check(q->question_end <= size && q->question.name.size() <= 255);
    check(q->udp_limit() >= 512 && q->udp_limit() <= 1232);
    for (Rcode rc : {Rcode::kServFail, Rcode::kFormErr}) {
      auto r = parse_response(error_reply(in, &*q, rc));
      check(r.ok() && r->question == q->question && r->header.id == q->header.id);
    }
    auto b = parse_response(blocked_reply(in, *q));
    check(b.ok() && b->question == q->question);
  }
  if (auto r = parse_response(in); r.ok()) {
    check(r->question_end <= size);
    for (std::uint32_t at : r->ttl_offsets) check(at + 4 <= size);
    Bytes copy(in.begin(), in.end());
    age_ttls(copy, r->ttl_offsets, 1000);
    // An RR name may point into an earlier TTL (garbage, but bounded): aging can change
    // it, never the question, which comes before every TTL.
    if (auto aged = parse_response(copy); aged.ok()) check(aged->question == r->question);
    auto t = parse_response(truncated_reply(in, r->question_end));
    check(t.ok() && t->question == r->question);
    Cache c(2);
    const std::string key = cache_key(r->question, false, false);
    if (c.store(key, in, *r, Instant{})) {
      auto hit = c.lookup(key, Instant{});
      check(hit.has_value() && parse_response(hit->message).ok());
      // Aged by a second (an entry with TTL 1 is gone by then).
      if (auto aged = c.lookup(key, Instant{} + std::chrono::seconds{1})) {
        check(aged->question_end == r->question_end);
      }
    }
  }
  return 0;
}
