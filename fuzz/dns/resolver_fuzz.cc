// The resolver state machine driven by hostile bytes: the input is cut into messages,
// each played as a client query, an upstream answer to the latest attempt (with that
// attempt's ID patched in, so the fuzzer gets past the ID check), an upstream error or
// a clock step. Invariants: the in-flight table stays within its bound, every answer
// the resolver writes parses, and every attempt it opens is closed by the end.
#include <cstdint>
#include <cstdlib>
#include <set>

#include "dns/name.h"
#include "dns/resolver.h"
#include "dns/writer.h"

using namespace qeli;
using namespace qeli::dns;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  crypto::DeterministicRng rng(1);
  Counters counters;
  ResolverConfig cfg;
  cfg.upstream_count = 2;
  cfg.cache_size = 8;
  cfg.max_in_flight = 4;
  cfg.blocklist.add(*parse_domain("blocked.example"));
  Resolver r(cfg, rng, counters);
  Instant now{};
  Actions out;
  std::set<AttemptId> open;
  std::vector<Actions::Send> sends;
  auto drain = [&] {
    for (const auto& rep : out.replies) {
      if (rep.message.size() < 12) std::abort();
    }
    for (const auto& s : out.sends) {
      open.insert(s.attempt);
      sends.push_back(s);
    }
    for (AttemptId a : out.closes) open.erase(a);
    out.clear();
    if (r.in_flight() > cfg.max_in_flight) std::abort();
  };
  std::size_t pos = 0;
  while (pos + 3 <= size) {
    const std::uint8_t op = data[pos];
    const std::size_t len =
        std::min<std::size_t>(size - pos - 3, (data[pos + 1] << 8) | data[pos + 2]);
    Bytes msg(data + pos + 3, data + pos + 3 + len);
    pos += 3 + len;
    switch (op % 4) {
      case 0:
        r.on_query({op, 0x0a000002U + (op >> 6), op & 4 ? Transport::kTcp : Transport::kUdp}, msg,
                   now, out);
        break;
      case 1:
        if (!sends.empty()) {
          const auto& s = sends[op % sends.size()];
          if (msg.size() >= 2)
            set_id(msg, static_cast<std::uint16_t>(s.message[0] << 8 | s.message[1]));
          r.on_upstream_reply(s.attempt, msg, now, out);
        }
        break;
      case 2:
        if (!sends.empty()) r.on_upstream_error(sends[op % sends.size()].attempt, now, out);
        break;
      default: now += std::chrono::milliseconds(op * 40); r.on_timer(now, out);
    }
    drain();
  }
  now += std::chrono::seconds{60};
  r.on_timer(now, out);
  drain();
  if (r.in_flight() != 0 || !open.empty()) std::abort();
  return 0;
}
