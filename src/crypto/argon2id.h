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

/// Hashes `password` with a fresh random 16-byte salt. Returns nullopt only if the
/// process cannot get the 19 MiB it needs.
std::optional<std::string> argon2id_hash(std::string_view password);

/// Verifies `password` against a PHC string, honouring the parameters stored in it.
/// Returns false for a wrong password and for a malformed or non-argon2id string.
bool argon2id_verify(std::string_view phc, std::string_view password);

/// True iff `phc` parses as an argon2id PHC string (used to validate users files).
bool argon2id_is_phc(std::string_view phc);

}  // namespace qeli::crypto
