// The client handshake fed a hostile server. Mode 0: the input is the server's bytes.
// Mode 1 (past the crypto gate): a correct ServerHello from a minimal in-harness server,
// then the input, cut into records by 2-byte lengths, sealed under the server handshake
// key — so EncryptedExtensions/Certificate/CompressedCertificate/CertificateVerify/
// Finished parsing and ordering are reached. Invariant: the machine ends kRunning,
// kFailed, or kDone only with a verified Finished (impossible here without the keys).
#include <cstdlib>

#include "crypto/random.h"
#include "tls/client_handshake.h"
#include "tls/client_hello.h"
#include "tls/handshake_reader.h"
#include "tls/key_exchange.h"
#include "tls/key_schedule.h"
#include "tls/record_protection.h"
#include "tls/server_hello.h"
#include "tls/transcript.h"

using namespace qeli;
using namespace qeli::tls;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  crypto::DeterministicRng rng(7);
  ClientHelloParams hp;
  hp.server_name = "fuzz.example";
  rng.fill(hp.session_id);
  BuiltClientHello hello = build_client_hello(hp, rng);
  const Bytes record = hello.record;
  ClientHandshake c(std::move(hello), {});
  c.start(Instant{});
  (void)c.take_output();
  const ByteSpan in(data + 1, size - 1);
  if ((data[0] & 1) == 0) {
    c.on_bytes(in, Instant{});
  } else {
    auto ch = parse_client_hello(ByteSpan(record).subspan(5));
    if (!ch) std::abort();
    const CipherSuite suite = CipherSuite::kAes128GcmSha256;
    auto kx = server_key_exchange(group::kX25519, ch->key_share(group::kX25519)->key_exchange, rng);
    if (!kx) std::abort();
    ServerHelloParams sp;
    sp.session_id = ch->session_id;
    sp.cipher_suite = code_of(suite);
    sp.extensions = {{ext::kSupportedVersions, {0x03, 0x04}},
                     {ext::kKeyShare, server_key_share_body(group::kX25519, kx->key_exchange)}};
    const Bytes sh = build_server_hello(sp);
    Transcript t;
    t.add(ByteSpan(record).subspan(5));
    t.set_algorithm(hash_of(suite));
    t.add(sh);
    KeySchedule ks(suite);
    ks.with_shared_secret(kx->shared.span());
    const HandshakeSecrets hs = ks.handshake_secrets(t.hash().span());
    Bytes wire = {0x16, 0x03, 0x03, static_cast<std::uint8_t>(sh.size() >> 8),
                  static_cast<std::uint8_t>(sh.size())};
    append(wire, sh);
    RecordProtection prot(suite, hs.server);
    for (std::size_t p = 0; p + 2 <= in.size();) {
      std::size_t n = ((in[p] << 8) | in[p + 1]) % 2048;
      p += 2;
      n = std::min(n, in.size() - p);
      Bytes rec(5 + n + seal_tail(0));
      std::copy(in.begin() + static_cast<std::ptrdiff_t>(p),
                in.begin() + static_cast<std::ptrdiff_t>(p + n), rec.begin() + 5);
      p += n;
      auto sealed = prot.seal(rec, n, ContentType::kHandshake);
      if (!sealed) break;
      rec.resize(*sealed);
      append(wire, rec);
    }
    c.on_bytes(wire, Instant{});
  }
  if (c.state() == ClientHandshake::State::kDone) std::abort();  // no Finished is forgeable here
  (void)c.take_output();
  return 0;
}
