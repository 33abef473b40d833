// UDP handshake fragments: classify, parse and reassemble arbitrary datagrams. The input
// is split into datagrams at 0xFF 0xFF markers so one run feeds a whole sequence to one
// Reassembler. Invariants: a parsed fragment is inside its datagram and within the limits;
// held memory never exceeds the bound; a completed message is at most 24 × 1200 bytes and
// equals what re-fragmenting it and reassembling again gives. The cookie messages
// (wire/udp_cookie.h): a datagram that parses as a marker, challenge or echo has exactly
// its size and kind, and building the parsed fields again gives the same bytes.
#include <algorithm>
#include <cstdlib>

#include "wire/udp_cookie.h"
#include "wire/udp_frag.h"

using namespace qeli;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  wire::Reassembler re(data != nullptr && size > 0 ? data[0] % 8 : 1);
  Instant now{};
  std::size_t start = 0;
  for (std::size_t i = 0; i <= size; ++i) {
    const bool end = i == size;
    if (!end && (i < start || !(i + 1 < size && data[i] == 0xFF && data[i + 1] == 0xFF))) {
      continue;
    }
    const ByteSpan d(data + start, i - start);
    start = end ? i : i + 2;
    now += std::chrono::seconds(d.empty() ? 0 : d[0] % 4);  // cross the timeout sometimes

    const wire::DatagramKind kind = wire::classify_datagram(d);
    auto f = wire::parse_fragment(d);
    if (f.ok()) {
      if (!wire::is_fragment(kind)) std::abort();
      if (f->count == 0 || f->count > wire::kFragMaxCount || f->index >= f->count) std::abort();
      if (f->chunk.size() > wire::kFragMaxChunkAccept) std::abort();
      if (f->chunk.data() + f->chunk.size() != d.data() + d.size()) std::abort();
    }
    (void)wire::parse_mtu_probe(d);
    const auto same = [&](const Bytes& b) {
      return std::equal(b.begin(), b.end(), d.begin(), d.end());
    };
    if (auto m = wire::parse_cookie_marker(d); m.ok()) {
      if (kind != wire::DatagramKind::kJunk || d.size() != 22) std::abort();
      if (!same(wire::build_cookie_marker(*m))) std::abort();
    }
    if (auto c = wire::parse_cookie_challenge(d); c.ok()) {
      if (kind != wire::DatagramKind::kCookieChallenge || d.size() != 30) std::abort();
      if (!same(wire::build_cookie_challenge(*c))) std::abort();
    } else if (kind == wire::DatagramKind::kCookieChallenge && d.size() == 30 && d[4] == 0 &&
               d[5] == 1) {
      std::abort();  // a well-formed challenge refused
    }
    if (auto e = wire::parse_cookie_echo(d); e.ok()) {
      if (kind != wire::DatagramKind::kCookieEcho || d.size() != 22) std::abort();
      if (!same(wire::build_cookie_echo(*e))) std::abort();
    } else if (kind == wire::DatagramKind::kCookieEcho && d.size() == 22 && d[4] == 0 &&
               d[5] == 1) {
      std::abort();
    }
    auto p = re.add(d, now);
    if (re.held_bytes() > wire::kFragMaxCount * wire::kFragMaxChunkAccept) std::abort();
    if (p.ok() && *p == wire::Reassembler::Progress::kComplete) {
      const Bytes msg(re.message().begin(), re.message().end());
      if (msg.size() > wire::kFragMaxCount * wire::kFragMaxChunkAccept) std::abort();
      auto again = wire::fragment_message(7, msg);
      if (again.ok()) {
        wire::Reassembler check(7);
        for (const Bytes& frag : *again) (void)check.add(frag, now);
        if (Bytes(check.message().begin(), check.message().end()) != msg) std::abort();
      } else if (!msg.empty() && msg.size() <= wire::kFragMaxMessage) {
        std::abort();
      }
    }
    if (end) break;
  }
  return 0;
}
