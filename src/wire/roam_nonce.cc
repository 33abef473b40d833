#include "wire/roam_nonce.h"

#include <algorithm>
#include <cstring>
#include <string_view>

#include "base/bytes.h"
#include "base/endian.h"
#include "crypto/sha256.h"
#include "wire/udp_envelope.h"

namespace qeli::wire {
namespace {
constexpr std::string_view kCidLabel = "qeli-roam-cid-v1";
constexpr std::string_view kPrpLabel = "qeli-roam-nonce-prp-v1";
}  // namespace

RoamCid roam_cid(const crypto::Key32& session_secret, std::uint32_t epoch) {
  std::array<std::uint8_t, kCidLabel.size() + 4> msg{};
  std::memcpy(msg.data(), kCidLabel.data(), kCidLabel.size());
  for (int i = 0; i < 4; ++i)
    msg[kCidLabel.size() + i] = static_cast<std::uint8_t>(epoch >> (8 * i));
  const crypto::Digest32 mac = crypto::hmac_sha256(session_secret.span(), msg);
  RoamCid cid;
  std::memcpy(cid.data(), mac.data(), cid.size());
  return cid;
}

crypto::Key32 roam_prp_key(const crypto::Key32& server_static_private) {
  const crypto::Digest32 d = crypto::hmac_sha256(server_static_private.span(), as_bytes(kPrpLabel));
  return crypto::Key32(std::span<const std::uint8_t, 32>(d));
}

RoamId read_roam_id(const crypto::NoncePrp& roam_prp, std::span<const std::uint8_t, 12> nonce) {
  const auto block = roam_prp.invert_block(nonce);
  RoamId id;
  std::memcpy(id.cid.data(), block.data(), id.cid.size());
  id.low_counter = load_be32(block.data() + 8);
  return id;
}

std::optional<RoamId> roam_id_in_datagram(ByteSpan datagram, UdpObfs* obfs,
                                          const crypto::NoncePrp& roam_prp) {
  // header 5 ‖ nonce 12 ‖ counter 8 ‖ padding length 2 ‖ tag 16
  constexpr std::size_t kMinRecord = 5 + 12 + 8 + 2 + 16;
  // Only the front is needed (seal 13 + short header 9 + record header 5 + nonce 12): it
  // is copied and undone on the stack; the lengths are checked against the whole.
  if (datagram.size() < kMinRecord) return std::nullopt;  // (and never a null memcpy)
  std::array<std::uint8_t, 64> front{};
  const std::size_t n = std::min(front.size(), datagram.size());
  std::memcpy(front.data(), datagram.data(), n);
  MutableByteSpan inner(front.data(), n);
  if (obfs != nullptr) {
    auto o = open_datagram(UdpEnvelope{false, {}, obfs}, inner);
    if (!o.ok()) return std::nullopt;
    inner = o->inner;
  }
  if (!inner.empty() && inner[0] != 0x17) {
    auto q = open_datagram(UdpEnvelope{true, {}, nullptr}, inner);
    if (!q.ok() || q->long_header) return std::nullopt;
    inner = q->inner;
  }
  const auto offset = static_cast<std::size_t>(inner.data() - front.data());
  const std::size_t record_size = datagram.size() - offset;  // offset ≤ n ≤ size
  if (record_size < kMinRecord || inner.size() < 5 + 12 || inner[0] != 0x17 || inner[1] != 0x03 ||
      inner[2] != 0x03 || load_be16(inner.data() + 3) != record_size - 5) {
    return std::nullopt;
  }
  return read_roam_id(roam_prp, std::span<const std::uint8_t, 12>(inner.data() + 5, 12));
}

RoamNonces::RoamNonces(const crypto::Key32& session_secret,
                       std::span<const std::uint8_t, 32> prp_key)
    : secret_(session_secret.span()), prp_(crypto::NoncePrp::FromPrpKey{}, prp_key) {}

crypto::Nonce12 RoamNonces::nonce(std::uint64_t counter) {
  const std::uint32_t e = epoch(counter);
  if (cached_epoch_ != e) {
    cid_ = roam_cid(secret_, e);  // once per path and per 2^32 records
    cached_epoch_ = e;
  }
  std::array<std::uint8_t, 12> block;
  std::memcpy(block.data(), cid_.data(), cid_.size());
  store_be32(block.data() + 8, static_cast<std::uint32_t>(counter));
  return prp_.permute_block(block);
}

}  // namespace qeli::wire
