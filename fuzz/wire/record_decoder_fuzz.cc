// The data-plane receive path, including PAST the AEAD with a test-only fixed key.
//
// Byte 0 chooses the framing and the path:
//   even: the rest is a TCP byte stream, split at positions taken from byte 1, fed to a
//         RecordReader; every record is opened (almost always an AEAD failure).
//   odd:  the rest is a sequence of [len(1)][plaintext] items that we ENCRYPT ourselves
//         under the fixed key (any counter, any padding length, any content), frame, and
//         then decode — so padding validation, the replay window, plaintext
//         classification and control-frame parsing see fuzzer-chosen plaintexts.
#include <cstdlib>
#include <cstring>

#include "base/endian.h"
#include "crypto/aead.h"
#include "wire/control_frame.h"
#include "wire/packet_codec.h"
#include "wire/record_reader.h"

using namespace qeli;

namespace {

constexpr std::uint8_t kFixedKey[32] = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11,
                                        12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22,
                                        23, 24, 25, 26, 27, 28, 29, 30, 31, 32};

void inspect(ByteSpan plaintext) {
  if (wire::classify_plaintext(plaintext) != wire::PlaintextKind::kControl) return;
  auto f = wire::parse_control_frame(plaintext);
  if (!f.ok()) return;
  if (f->body.data() + f->body.size() > plaintext.data() + plaintext.size()) std::abort();
  (void)wire::parse_mtu_report(*f);
  (void)wire::parse_client_info(*f);
  (void)wire::parse_capabilities(*f);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const wire::Framing framing = (data[0] & 2) ? wire::Framing::kRaw : wire::Framing::kTls;
  const std::array<std::uint8_t, 4> seed{};
  wire::PacketCodec rx(framing, std::span<const std::uint8_t, 32>(kFixedKey), seed);
  const std::size_t hdr = wire::header_size(framing);
  if ((data[0] & 1) == 0) {
    wire::RecordReader reader(framing, wire::kMaxRecordPayload);
    const std::size_t step = std::size_t{data[1]} + 1;
    ByteSpan in(data + 2, size - 2);
    while (!in.empty()) {
      in = in.subspan(reader.feed(in.first(std::min(step, in.size()))));
      for (auto n = reader.next(); n.status == wire::RecordReader::Status::kRecord;
           n = reader.next()) {
        if (n.record.size() > wire::max_record_size(framing)) std::abort();
        auto r = rx.open_in_place(n.record);
        if (r.ok()) inspect(r->data);
      }
      if (reader.error() != wire::DeframeError::kNone) break;
    }
    return 0;
  }
  crypto::Aead aead(crypto::AeadAlgorithm::kChaCha20Poly1305,
                    std::span<const std::uint8_t>(kFixedKey, 32));
  std::size_t pos = 1;
  while (pos < size) {
    const std::size_t len = std::min<std::size_t>(data[pos], size - pos - 1);
    ++pos;
    Bytes rec(hdr + wire::kNonceSize + len + wire::kTagSize);
    const std::size_t payload = rec.size() - hdr;
    if (framing == wire::Framing::kTls) {
      rec[0] = 0x17, rec[1] = 3, rec[2] = 3;
    }
    store_be16(rec.data() + hdr - 2, static_cast<std::uint16_t>(payload));
    std::uint8_t nonce[12] = {};
    nonce[11] = static_cast<std::uint8_t>(pos);
    std::memcpy(rec.data() + hdr, nonce, 12);
    std::memcpy(rec.data() + hdr + 12, data + pos, len);
    aead.seal(std::span<const std::uint8_t, 12>(nonce, 12), {},
              MutableByteSpan(rec.data() + hdr + 12, len),
              std::span<std::uint8_t, 16>(rec.data() + hdr + 12 + len, 16));
    pos += len;
    auto r = rx.open_in_place(rec);
    if (!r.ok()) continue;
    if (r->data.data() < rec.data() || r->data.data() + r->data.size() > rec.data() + rec.size()) {
      std::abort();
    }
    inspect(r->data);
  }
  return 0;
}
