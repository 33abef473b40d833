// CertificateVerify signatures of the right shape for a certificate whose key we do not
// hold (the terminator presents the target's real chain): the terminator cannot sign, so
// it sends bytes that look like a signature of the target's scheme and have the length
// distribution a real one has. Only a peer that completes the handshake (a leaked client
// credential) ever sees them; our clients do not check them (trust is the inner proof).
//
//   ECDSA (0x0403/0x0503/0x0603): a DER SEQUENCE of two INTEGERs r, s drawn uniformly
//     below 2^n: leading-zero and high-bit rules give the real 70/71/72-byte spread (P-256).
//   RSA (PKCS#1 / PSS): `observed_size` random bytes below the modulus' top byte.
//   Ed25519 / others: `observed_size` random bytes.
#pragma once

#include <cstdint>

#include "base/bytes.h"
#include "crypto/random.h"

namespace qeli::tls {

Bytes fake_signature(std::uint16_t scheme, std::size_t observed_size, crypto::Rng& rng);

}  // namespace qeli::tls
