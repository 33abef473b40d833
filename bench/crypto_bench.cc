// bench/crypto_bench: the crypto layer's primitives at the sizes the data plane uses.
// Reproduce with OpenSSL's own numbers beside them: bench/run_crypto_bench.sh
// (see docs/BENCHMARKS.md, section "Crypto").
#include <benchmark/benchmark.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "base/bytes.h"
#include "crypto/aead.h"
#include "crypto/argon2id.h"
#include "crypto/mlkem768.h"
#include "crypto/nonce_prp.h"
#include "crypto/x25519.h"
#include "support/counting_allocator.h"

namespace qeli::crypto {
namespace {

// Every OpenSSL allocation (and every global new) is counted by the shared counting
// allocator (tests/support/counting_allocator.h), installed before OpenSSL allocates, so
// the AEAD benchmarks can report how many a seal or open costs in the steady state
// (issue 2: none).
std::uint64_t openssl_allocs() { return test::allocation_count(); }

// Sets the "openssl_allocs_per_op" counter: OpenSSL and global-new allocations per
// operation (-1 if the OpenSSL hook could not be installed).
void report_allocs(benchmark::State& state, std::uint64_t before) {
  const auto n = openssl_allocs() - before;
  state.counters["openssl_allocs_per_op"] =
      test::openssl_counting_active()
          ? static_cast<double>(n) / static_cast<double>(state.iterations())
          : -1.0;
}

void BM_AeadSeal(benchmark::State& state, AeadAlgorithm alg) {
  Bytes key(aead_key_size(alg), 0x11);
  Aead aead(alg, key);
  Bytes buf(static_cast<std::size_t>(state.range(0)), 0x22);
  std::array<std::uint8_t, 12> nonce{};
  std::array<std::uint8_t, 16> tag{};
  std::uint64_t n = 0;
  const auto allocs = openssl_allocs();
  for (auto _ : state) {
    nonce[0] = static_cast<std::uint8_t>(++n);
    benchmark::DoNotOptimize(aead.seal(nonce, {}, buf, tag));
  }
  report_allocs(state, allocs);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0));
}

void BM_AeadOpen(benchmark::State& state, AeadAlgorithm alg) {
  Bytes key(aead_key_size(alg), 0x11);
  Aead aead(alg, key);
  const std::size_t len = static_cast<std::size_t>(state.range(0));
  Bytes sealed(len, 0x22);
  std::array<std::uint8_t, 12> nonce{};
  std::array<std::uint8_t, 16> tag{};
  (void)aead.seal(nonce, {}, sealed, tag);
  Bytes buf(len);
  const auto allocs = openssl_allocs();
  for (auto _ : state) {
    std::copy(sealed.begin(), sealed.end(), buf.begin());
    if (!aead.open(nonce, {}, buf, tag)) state.SkipWithError("open failed");
  }
  report_allocs(state, allocs);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0));
}

#define QELI_AEAD_SIZES Arg(64)->Arg(1400)->Arg(16384)->Arg(65536)
BENCHMARK_CAPTURE(BM_AeadSeal, chacha20poly1305, AeadAlgorithm::kChaCha20Poly1305)->QELI_AEAD_SIZES;
BENCHMARK_CAPTURE(BM_AeadOpen, chacha20poly1305, AeadAlgorithm::kChaCha20Poly1305)->QELI_AEAD_SIZES;
BENCHMARK_CAPTURE(BM_AeadSeal, aes128gcm, AeadAlgorithm::kAes128Gcm)->QELI_AEAD_SIZES;
BENCHMARK_CAPTURE(BM_AeadOpen, aes128gcm, AeadAlgorithm::kAes128Gcm)->QELI_AEAD_SIZES;

// Baselines without the wrapper, for docs/BENCHMARKS.md: the exact OpenSSL call sequence of
// Aead::seal on a bare EVP_CIPHER_CTX (so the difference is the wrapper's cost), and
// update-only on one context (what `openssl speed -evp` measures: no nonce, no tag).
struct EvpCtx {
  explicit EvpCtx(const EVP_CIPHER* cipher) : ctx(EVP_CIPHER_CTX_new()) {
    const Bytes key(static_cast<std::size_t>(EVP_CIPHER_get_key_length(cipher)), 0x11);
    if (ctx == nullptr || EVP_EncryptInit_ex(ctx, cipher, nullptr, key.data(), nullptr) != 1) {
      std::abort();
    }
  }
  ~EvpCtx() { EVP_CIPHER_CTX_free(ctx); }
  EvpCtx(const EvpCtx&) = delete;
  EvpCtx& operator=(const EvpCtx&) = delete;
  EVP_CIPHER_CTX* ctx;
};

void BM_EvpSealBaseline(benchmark::State& state, const EVP_CIPHER* cipher) {
  EvpCtx e(cipher);
  Bytes buf(static_cast<std::size_t>(state.range(0)), 0x22);
  std::array<std::uint8_t, 12> nonce{};
  std::array<std::uint8_t, 16> tag{};
  std::uint64_t n = 0;
  for (auto _ : state) {
    nonce[0] = static_cast<std::uint8_t>(++n);
    int len = 0;
    const bool ok =
        EVP_EncryptInit_ex(e.ctx, nullptr, nullptr, nullptr, nonce.data()) == 1 &&
        EVP_EncryptUpdate(e.ctx, buf.data(), &len, buf.data(), static_cast<int>(buf.size())) == 1 &&
        EVP_EncryptFinal_ex(e.ctx, buf.data() + buf.size(), &len) == 1 &&
        EVP_CIPHER_CTX_ctrl(e.ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag.data()) == 1;
    benchmark::DoNotOptimize(ok);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0));
}

void BM_EvpUpdateOnly(benchmark::State& state, const EVP_CIPHER* cipher) {
  EvpCtx e(cipher);
  std::array<std::uint8_t, 12> nonce{};
  if (EVP_EncryptInit_ex(e.ctx, nullptr, nullptr, nullptr, nonce.data()) != 1) std::abort();
  Bytes buf(static_cast<std::size_t>(state.range(0)), 0x22);
  for (auto _ : state) {
    int len = 0;
    benchmark::DoNotOptimize(
        EVP_EncryptUpdate(e.ctx, buf.data(), &len, buf.data(), static_cast<int>(buf.size())));
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0));
}

BENCHMARK_CAPTURE(BM_EvpSealBaseline, chacha20poly1305, EVP_chacha20_poly1305())->QELI_AEAD_SIZES;
BENCHMARK_CAPTURE(BM_EvpUpdateOnly, chacha20poly1305, EVP_chacha20_poly1305())->QELI_AEAD_SIZES;
BENCHMARK_CAPTURE(BM_EvpSealBaseline, aes128gcm, EVP_aes_128_gcm())->QELI_AEAD_SIZES;
BENCHMARK_CAPTURE(BM_EvpUpdateOnly, aes128gcm, EVP_aes_128_gcm())->QELI_AEAD_SIZES;

void BM_X25519(benchmark::State& state) {
  DeterministicRng rng(1);
  auto a = x25519_generate(rng);
  auto b = x25519_generate(rng);
  const auto allocs = openssl_allocs();
  for (auto _ : state) benchmark::DoNotOptimize(x25519(a.private_key.span(), b.public_key));
  report_allocs(state, allocs);  // nonzero: EVP_PKEY objects per call (handshake only)
}
BENCHMARK(BM_X25519);

void BM_MlKem768KeyGen(benchmark::State& state) {
  DeterministicRng rng(4);
  for (auto _ : state) benchmark::DoNotOptimize(mlkem768_generate(rng));
}
BENCHMARK(BM_MlKem768KeyGen);

void BM_MlKem768Encaps(benchmark::State& state) {
  DeterministicRng rng(2);
  auto kp = mlkem768_generate(rng);
  for (auto _ : state) benchmark::DoNotOptimize(mlkem768_encapsulate(kp.public_key, rng));
}
BENCHMARK(BM_MlKem768Encaps);

void BM_MlKem768Decaps(benchmark::State& state) {
  DeterministicRng rng(3);
  auto kp = mlkem768_generate(rng);
  auto enc = mlkem768_encapsulate(kp.public_key, rng);
  for (auto _ : state)
    benchmark::DoNotOptimize(mlkem768_decapsulate(*kp.secret_key, enc.ciphertext));
}
BENCHMARK(BM_MlKem768Decaps);

void BM_Argon2idVerify(benchmark::State& state) {
  const auto phc = argon2id_hash("correct horse battery staple").value();
  for (auto _ : state)
    benchmark::DoNotOptimize(argon2id_verify(phc, "correct horse battery staple"));
}
BENCHMARK(BM_Argon2idVerify)->Unit(benchmark::kMillisecond);

void BM_NoncePermutation(benchmark::State& state) {
  const Key32 key;
  NoncePrp prp(key.span());
  const std::array<std::uint8_t, 4> seed = {1, 2, 3, 4};
  std::uint64_t c = 0;
  const auto allocs = openssl_allocs();
  for (auto _ : state) benchmark::DoNotOptimize(prp.permute(seed, c++));
  report_allocs(state, allocs);
}
BENCHMARK(BM_NoncePermutation);

}  // namespace
}  // namespace qeli::crypto

BENCHMARK_MAIN();
