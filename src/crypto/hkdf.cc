#include "crypto/hkdf.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>

#include "base/bytes.h"
#include "base/endian.h"

namespace qeli::crypto {

void hkdf_extract(DigestAlgorithm alg, std::span<const std::uint8_t> salt,
                  std::span<const std::uint8_t> ikm, std::span<std::uint8_t> prk) {
  static constexpr std::array<std::uint8_t, kMaxDigestSize> kZeroSalt{};
  const std::size_t n = digest_size(alg);
  if (prk.size() != n) std::abort();
  DigestValue v =
      hmac(alg, salt.empty() ? std::span<const std::uint8_t>(kZeroSalt.data(), n) : salt, ikm);
  std::memcpy(prk.data(), v.bytes.data(), n);
  secure_wipe(v.bytes.data(), v.bytes.size());
}

bool hkdf_expand(DigestAlgorithm alg, std::span<const std::uint8_t> prk,
                 std::span<const std::uint8_t> info, std::span<std::uint8_t> out) {
  const std::size_t hlen = digest_size(alg);
  if (out.empty() || out.size() > 255 * hlen) return false;
  // T(i) = HMAC(PRK, T(i-1) ‖ info ‖ i). Built in one buffer: T(prev) ‖ info ‖ counter.
  std::array<std::uint8_t, kMaxDigestSize> t{};
  std::size_t t_len = 0;
  std::size_t done = 0;
  std::uint8_t counter = 1;
  std::array<std::uint8_t, 512> stack_buf;
  Bytes heap_buf;
  std::uint8_t* buf = stack_buf.data();
  const std::size_t need = hlen + info.size() + 1;
  if (need > stack_buf.size()) {
    heap_buf.resize(need);
    buf = heap_buf.data();
  }
  while (done < out.size()) {
    if (t_len != 0) std::memcpy(buf, t.data(), t_len);
    if (!info.empty()) std::memcpy(buf + t_len, info.data(), info.size());
    buf[t_len + info.size()] = counter++;
    DigestValue block = hmac(alg, prk, {buf, t_len + info.size() + 1});
    std::memcpy(t.data(), block.bytes.data(), hlen);
    secure_wipe(block.bytes.data(), block.bytes.size());
    t_len = hlen;
    const std::size_t n = std::min(hlen, out.size() - done);
    std::memcpy(out.data() + done, t.data(), n);
    done += n;
  }
  secure_wipe(t.data(), t.size());
  secure_wipe(buf, need);
  return true;
}

bool hkdf_expand_label(DigestAlgorithm alg, std::span<const std::uint8_t> secret,
                       std::string_view label, std::span<const std::uint8_t> context,
                       std::span<std::uint8_t> out) {
  static constexpr std::string_view kPrefix = "tls13 ";
  if (label.size() + kPrefix.size() > 255 || context.size() > 255 || out.size() > 65535) {
    return false;
  }
  std::array<std::uint8_t, 2 + 1 + 255 + 1 + 255> info;
  std::size_t n = 0;
  store_be16(info.data(), static_cast<std::uint16_t>(out.size()));
  n += 2;
  info[n++] = static_cast<std::uint8_t>(kPrefix.size() + label.size());
  std::memcpy(info.data() + n, kPrefix.data(), kPrefix.size());
  n += kPrefix.size();
  if (!label.empty()) std::memcpy(info.data() + n, label.data(), label.size());
  n += label.size();
  info[n++] = static_cast<std::uint8_t>(context.size());
  if (!context.empty()) std::memcpy(info.data() + n, context.data(), context.size());
  n += context.size();
  return hkdf_expand(alg, secret, {info.data(), n}, out);
}

Key32 hkdf_extract(std::span<const std::uint8_t> salt, std::span<const std::uint8_t> ikm) {
  Key32 out;
  hkdf_extract(DigestAlgorithm::kSha256, salt, ikm, out.span());
  return out;
}

bool hkdf_expand(std::span<const std::uint8_t> prk, std::span<const std::uint8_t> info,
                 std::span<std::uint8_t> out) {
  return hkdf_expand(DigestAlgorithm::kSha256, prk, info, out);
}

bool hkdf(std::span<const std::uint8_t> salt, std::span<const std::uint8_t> ikm,
          std::span<const std::uint8_t> info, std::span<std::uint8_t> out) {
  const Key32 prk = hkdf_extract(salt, ikm);
  return hkdf_expand(prk.span(), info, out);
}

bool hkdf_expand_label(std::span<const std::uint8_t> secret, std::string_view label,
                       std::span<const std::uint8_t> context, std::span<std::uint8_t> out) {
  return hkdf_expand_label(DigestAlgorithm::kSha256, secret, label, context, out);
}

Key32 derive_secret(std::span<const std::uint8_t> secret, std::string_view label,
                    std::span<const std::uint8_t, 32> transcript_hash) {
  Key32 out;
  hkdf_expand_label(secret, label, transcript_hash, out.span());
  return out;
}

}  // namespace qeli::crypto
