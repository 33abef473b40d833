#include "tls/hello_writer.h"

#include <cstdlib>
#include <cstring>

#include "wire/byte_io.h"

namespace qeli::tls {

Bytes write_client_hello_record(std::uint16_t record_version,
                                std::span<const std::uint8_t, kRandomSize> random,
                                std::span<const std::uint8_t, kLegacySessionIdSize> session_id,
                                std::span<const std::uint16_t> cipher_suites, ByteSpan extensions) {
  Bytes out;
  out.reserve(kRecordHeaderSize + 4 + 2 + 32 + 33 + 2 + 2 * cipher_suites.size() + 2 + 2 +
              extensions.size());
  wire::ByteWriter w(out);
  w.u8(static_cast<std::uint8_t>(ContentType::kHandshake));
  w.u16(record_version);
  const std::size_t rec = w.open_length(2);
  w.u8(static_cast<std::uint8_t>(HandshakeType::kClientHello));
  const std::size_t hs = w.open_length(3);
  w.u16(kLegacyVersion);
  w.bytes(random);
  w.u8(static_cast<std::uint8_t>(session_id.size()));
  w.bytes(session_id);
  w.u16(static_cast<std::uint16_t>(2 * cipher_suites.size()));
  for (std::uint16_t c : cipher_suites) w.u16(c);
  w.u8(1);
  w.u8(0);
  w.vec16(extensions);
  w.close_length(hs, 3);
  w.close_length(rec, 2);
  return out;
}

void set_session_id(MutableByteSpan record,
                    std::span<const std::uint8_t, kLegacySessionIdSize> session_id) {
  if (record.size() < kSessionIdOffsetInRecord + kLegacySessionIdSize ||
      record[kSessionIdOffsetInRecord - 1] != kLegacySessionIdSize) {
    std::abort();  // not a hello built by write_client_hello_record: a bug
  }
  std::memcpy(record.data() + kSessionIdOffsetInRecord, session_id.data(), kLegacySessionIdSize);
}

}  // namespace qeli::tls
