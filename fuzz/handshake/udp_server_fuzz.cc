// The UDP server adapter facing one hostile source: the input is split into datagrams at
// 0xFF 0xFF markers (the first byte picks obfs on/off, and the hello gate: admit all,
// refuse all, challenge all, or challenge and admit by turns). Checks: what the server
// sends before authentication never exceeds 3x what it counted in from the source; no
// event without a decrypted AUTH; a failed adapter sends nothing more; behind a refusing
// gate nothing is ever sent and no key agreement runs; behind a challenging one only
// challenges (msg 7, 30 bytes + envelope) are sent, never more than the gate was told the
// source could take (it sent a marker), and nothing is kept after one.
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
  const int gate = (data[0] >> 1) & 3;  // 0 admit, 1 refuse, 2 challenge, 3 by turns
  const bool refuse_all = gate == 1, challenge_all = gate == 2;
  std::size_t challengeable = 0, calls = 0, echoes = 0, fed = 0;
  if (gate != 0) {
    cfg.admit_hello = [&](Instant, bool ch) {
      challengeable += ch ? 1 : 0;
      ++calls;
      if (gate == 1) return HelloVerdict::refuse();
      if (gate == 3 && calls % 2 == 0) return HelloVerdict::admit();
      return HelloVerdict::challenge(wire::Cookie{});
    };
  }
  cfg.on_cookie = [&](std::optional<wire::Cookie>, Instant) { ++echoes; };
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
    if (echoes > ++fed) std::abort();  // at most one per datagram
    std::size_t sent = 0;
    for (const Bytes& o : s.take_datagrams()) {
      sent += o.size();
      // A challenge: 30 bytes, plus the QUIC long header (18) and/or the obfs seal (13).
      const std::size_t n = o.size();
      if (challenge_all && n != 30 && n != 48 && n != 43 && n != 61) std::abort();
    }
    if (s.challenged() > challengeable || s.challenged() > s.refused()) std::abort();
    if (challenge_all && (s.has_hello() || (s.challenged() > 0 && s.refused() == 0))) std::abort();
    if (s.take_event()) std::abort();  // an AUTH cannot be forged without the keys
    if (s.pre_auth_bytes_sent() > 3 * s.bytes_received()) std::abort();
    if (refuse_all && (sent != 0 || s.has_hello())) std::abort();
    if (s.state() == State::kFailed && (sent != 0 || s.failure() == Failure::kNone)) std::abort();
    if (end) break;
  }
  return 0;
}
