// The UDP server adapter facing one hostile source: the input is split into datagrams at
// 0xFF 0xFF markers (the first byte picks obfs on/off, and a hello gate that refuses
// everything). Checks: what the server sends before authentication never exceeds 3x
// what it counted in from the source; no event without a decrypted AUTH; a failed
// adapter sends nothing more; behind a refusing gate nothing is ever sent and no key
// agreement runs.
#include <cstdlib>

#include "crypto/random.h"
#include "crypto/x25519.h"
#include "handshake/udp_server_handshake.h"
#include "wire/udp_obfs.h"

using namespace qeli;
using namespace qeli::handshake;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  crypto::DeterministicRng rng(9);
  static const crypto::X25519KeyPair identity = [] {
    crypto::DeterministicRng r(1);
    return crypto::x25519_generate(r);
  }();
  static wire::UdpObfs obfs("fuzz");
  UdpServerConfig cfg;
  cfg.inner.identity = &identity;
  cfg.obfs = (data[0] & 1) != 0 ? &obfs : nullptr;
  const bool refuse_all = (data[0] & 2) != 0;
  if (refuse_all) cfg.admit_hello = [](Instant) { return false; };
  UdpServerHandshake s(cfg, rng);
  Instant now{};
  std::size_t start = 1;
  for (std::size_t i = 1; i <= size; ++i) {
    const bool end = i == size;
    if (!end && (i < start || !(i + 1 < size && data[i] == 0xFF && data[i + 1] == 0xFF))) {
      continue;
    }
    Bytes d(data + start, data + i);
    start = end ? i : i + 2;
    now += std::chrono::milliseconds(d.empty() ? 0 : (d[0] & 0x0F) * 500);
    s.on_datagram(d, now);
    s.on_timer(now);
    std::size_t sent = 0;
    for (const Bytes& o : s.take_datagrams()) sent += o.size();
    if (s.take_event()) std::abort();  // an AUTH cannot be forged without the keys
    if (s.pre_auth_bytes_sent() > 3 * s.bytes_received()) std::abort();
    if (refuse_all && (sent != 0 || s.has_hello())) std::abort();
    if (s.state() == State::kFailed && (sent != 0 || s.failure() == Failure::kNone)) std::abort();
    if (end) break;
  }
  return 0;
}
