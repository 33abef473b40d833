// Past the crypto gate: the input is split into records (2-byte length prefixes), each
// sealed under a fixed key with a fuzzer-chosen inner type and padding, and fed to the
// established RecordReceiver — KeyUpdate, NewSessionTicket, alerts, interleaving,
// empty-record runs. Invariant: no crash; data handed out lies in the buffer.
#include <cstdlib>

#include "tls/record_channel.h"

using namespace qeli;
using namespace qeli::tls;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const CipherSuite suite = size > 0 && (data[0] & 1) ? CipherSuite::kChaCha20Poly1305Sha256
                                                      : CipherSuite::kAes128GcmSha256;
  const Secret key(Bytes(32, 0x22));
  auto signal = std::make_shared<KeyUpdateSignal>();
  // The sender mirrors every KeyUpdate the receiver will see, so later records still open.
  RecordProtection seal(suite, key);
  Secret current = key.clone();
  RecordReceiver rx(suite, key.clone(), signal);
  std::size_t p = 1;
  while (p + 3 <= size) {
    const std::uint8_t type = data[p] % 4 == 0 ? 21 : data[p] % 4 == 1 ? 22 : 23;
    const std::size_t pad = data[p + 1] % 32;
    std::size_t n = data[p + 2];
    p += 3;
    n = std::min(n, size - p);
    Bytes rec(kRecordHeaderSize + n + seal_tail(pad));
    std::copy(data + p, data + p + n, rec.begin() + kRecordHeaderSize);
    p += n;
    auto sealed = seal.seal(rec, n, static_cast<ContentType>(type), pad);
    if (!sealed) return 0;
    rec.resize(*sealed);
    // A KeyUpdate message in the content rekeys the receiver: follow it on our side.
    const bool key_update = type == 22 && n == 5 && rec[5] == 24 && rec[6] == 0 && rec[7] == 0 &&
                            rec[8] == 1 && data[p - 1] <= 1;
    if (!rx.buffer().append(rec)) return 0;
    for (;;) {
      auto in = rx.next();
      if (!in) return 0;
      if (in->kind != InboundKind::kData) break;
      if (in->data.empty()) std::abort();
    }
    if (key_update) {
      current = next_traffic_secret(suite, current);
      seal.rekey(current);
    }
  }
  return 0;
}
