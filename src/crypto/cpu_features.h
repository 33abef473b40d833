// What this CPU offers the data plane, probed once (start-up, not per packet).
#pragma once

namespace qeli::crypto {

/// True when AES-GCM runs in hardware here: AES and carry-less multiply instructions
/// (x86-64: AES-NI + PCLMULQDQ; aarch64: the AES and PMULL extensions). Anything else
/// (another architecture, or a CPU without them) is false: there libcrypto's AES-GCM is
/// a table-based software path that is slower than ChaCha20-Poly1305 and not
/// constant-time, so our AES-GCM extension (docs/PROTOCOL.md §18) is not offered.
bool cpu_has_aes_gcm();

/// True on an x86-64 CPU with AVX2 (32-byte integer vectors): the WebSocket mask loop
/// takes its 32-byte form there. False elsewhere.
bool cpu_has_avx2();

}  // namespace qeli::crypto
