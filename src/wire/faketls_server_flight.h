// The server's fake-TLS flight of qeli 0.7.16 (`tls.rs`; docs/PROTOCOL.md "Server flight"):
//
//   ServerHello  16 03 03 len | 02 len24 | 03 03 | random(32) | 20 sid(32, random — NOT
//                the client's) | 13 01 | 00 | ext_len | 00 2b 00 02 03 04
//                | 00 33 ext_len | 04 64 (qeli's extra length = 1124) | 11 ec 04 60
//                | ML-KEM ct(1088) ‖ server X25519(32)
//   CCS          14 03 03 00 01 01
//   Certificate  17 03 03 len | 0b len24 | list_len24 | cert_len24 | pseudo-DER(512..1799)
//                | 00 00 00
//   Finished     17 03 03 len | 14 00 00 20 | random(32)
//   NST          17 03 03 len | 04 len24 | lifetime 7200 | age_add(4) | 04 nonce(4)
//                | ticket_len(2) ticket(32..192) | 00 00
//
// The ServerHello key_share is NOT valid TLS (the extra 2-byte length) — kept because
// 0.7.16 clients parse exactly this. Cert/Finished/NST are not encrypted: only their
// shape is disguised; the transcript (CH ‖ SH ‖ Cert ‖ Finished) authenticates them.
#pragma once

#include <array>

#include "base/bytes.h"
#include "base/result.h"
#include "crypto/random.h"
#include "wire/faketls_client_hello.h"
#include "wire/limits.h"

namespace qeli::wire {

struct ServerHelloParams {
  std::array<std::uint8_t, kRandomSize> random{};
  std::array<std::uint8_t, kSessionIdSize> session_id{};
  std::array<std::uint8_t, kMlKemCtSize> mlkem_ct{};
  std::array<std::uint8_t, kX25519PublicSize> x25519{};
};

Bytes build_server_hello(const ServerHelloParams& p);

struct ServerHello {
  std::array<std::uint8_t, kMlKemCtSize> mlkem_ct{};
  std::array<std::uint8_t, kX25519PublicSize> x25519{};
};

/// Parses one whole ServerHello record in the qeli layout. A hello selecting anything but
/// 0x11EC is refused (kNoHybridShare): the client never falls back to classic.
Result<ServerHello, HelloError> parse_server_hello(ByteSpan record);

/// `14 03 03 00 01 01`.
Bytes build_change_cipher_spec();
/// The disguised records; sizes and contents drawn from `rng`.
Bytes build_fake_certificate(crypto::Rng& rng);
Bytes build_fake_finished(crypto::Rng& rng);
Bytes build_fake_new_session_ticket(crypto::Rng& rng);

enum class FlightRecord : std::uint8_t { kChangeCipherSpec, kCertificate, kFinished, kTicket };

/// Checks that a whole record has the shape of the expected flight record: content type,
/// inner handshake type and the 24-bit length (CCS: exactly 14 03 03 00 01 01). The random
/// contents are not (cannot be) checked.
Status<HelloError> check_flight_record(FlightRecord expected, ByteSpan record);

}  // namespace qeli::wire
