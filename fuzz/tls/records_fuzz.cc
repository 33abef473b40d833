// Record layer on hostile bytes: the deframer (any split of the input) and in-place
// opening under a fixed key. Invariants: every record handed out is exactly header +
// length and within the §5.1/§5.2 limits; an opened record's content lies inside it.
#include <cstdlib>

#include "tls/record_buffer.h"
#include "tls/record_protection.h"

using namespace qeli;
using namespace qeli::tls;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::size_t split = data[0] % 7 + 1;  // feed in chunks of 1..7 bytes
  RecordBuffer buf(2 * kMaxReceivedRecordSize);
  RecordProtection prot(CipherSuite::kAes128GcmSha256, Secret(Bytes(32, 0x11)));
  for (std::size_t p = 1; p < size; p += split) {
    const std::size_t n = std::min(split, size - p);
    if (!buf.append({data + p, n})) return 0;
    for (;;) {
      auto r = buf.next();
      if (!r) return 0;
      if (!r->has_value()) break;
      const RecordView v = **r;
      const std::size_t len = (v.record[3] << 8) | v.record[4];
      if (v.record.size() != kRecordHeaderSize + len || len > kMaxCiphertext) std::abort();
      if (v.type == ContentType::kApplicationData) {
        auto o = prot.open(v.record);
        if (o && (o->content.data() < v.record.data() ||
                  o->content.data() + o->content.size() > v.record.data() + v.record.size())) {
          std::abort();
        }
      }
    }
  }
  return 0;
}
