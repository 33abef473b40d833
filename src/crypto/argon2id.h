// Argon2id password hashing (RFC 9106) over libsodium, as PHC strings
// (`$argon2id$v=19$m=19456,t=2,p=1$<salt b64>$<hash b64>`).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace qeli::crypto {

/// qeli's parameters for new hashes (those of qeli 0.7.16): m = 19456 KiB, t = 2, p = 1.
inline constexpr std::uint32_t kArgon2MemoryKiB = 19456;
inline constexpr std::uint32_t kArgon2Iterations = 2;

/// The most a stored PHC string may ask of a verification. A users file is configuration,
/// but a typo such as `t=2000000000` or `m=4294967295` must not stall or exhaust the
/// server at every login, so strings beyond these bounds are refused before any work:
/// m ≤ 2 GiB (RFC 9106 §4's first recommended option), t ≤ 32, 1 ≤ p ≤ 16, m ≥ 8·p
/// (RFC 9106 §3.1), and m·t ≤ 4 GiB-passes (a few seconds on one core).
inline constexpr std::uint32_t kArgon2MaxMemoryKiB = 2U * 1024 * 1024;
inline constexpr std::uint32_t kArgon2MaxIterations = 32;
inline constexpr std::uint32_t kArgon2MaxParallelism = 16;
inline constexpr std::uint64_t kArgon2MaxCostKiBPasses = 4ULL * 1024 * 1024;

/// Hashes `password` with a fresh random 16-byte salt. Returns nullopt only if the
/// process cannot get the 19 MiB it needs.
std::optional<std::string> argon2id_hash(std::string_view password);

/// Verifies `password` against a PHC string, honouring the parameters stored in it.
/// Returns false for a wrong password and for any string argon2id_is_phc() refuses.
bool argon2id_verify(std::string_view phc, std::string_view password);

/// True iff `phc` is exactly `$argon2id$v=19$m=M,t=T,p=P$SALT$HASH` with decimal M, T, P
/// inside the bounds above, SALT 8..64 bytes and HASH 16..64 bytes in unpadded standard
/// base64 (PHC string format), and nothing else. Used to validate users files.
bool argon2id_is_phc(std::string_view phc);

}  // namespace qeli::crypto
