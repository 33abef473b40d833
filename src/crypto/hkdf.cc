#include "crypto/hkdf.h"

#include <algorithm>
#include <array>
#include <cstring>

#include "base/bytes.h"
#include "base/endian.h"

namespace qeli::crypto {

Key32 hkdf_extract(std::span<const std::uint8_t> salt, std::span<const std::uint8_t> ikm) {
  static constexpr std::array<std::uint8_t, 32> kZeroSalt{};
  const auto prk = hmac_sha256(salt.empty() ? std::span<const std::uint8_t>(kZeroSalt) : salt, ikm);
  Key32 out{std::span<const std::uint8_t, 32>(prk)};
  return out;
}

bool hkdf_expand(std::span<const std::uint8_t> prk, std::span<const std::uint8_t> info,
                 std::span<std::uint8_t> out) {
  if (out.empty() || out.size() > 255 * kSha256Size) return false;
  // T(i) = HMAC(PRK, T(i-1) ‖ info ‖ i). Built in one buffer: T(prev) ‖ info ‖ counter.
  std::array<std::uint8_t, kSha256Size> t{};
  std::size_t t_len = 0;
  std::size_t done = 0;
  std::uint8_t counter = 1;
  std::array<std::uint8_t, 512> stack_buf;
  Bytes heap_buf;
  std::uint8_t* buf = stack_buf.data();
  const std::size_t need = kSha256Size + info.size() + 1;
  if (need > stack_buf.size()) {
    heap_buf.resize(need);
    buf = heap_buf.data();
  }
  while (done < out.size()) {
    std::memcpy(buf, t.data(), t_len);
    if (!info.empty()) std::memcpy(buf + t_len, info.data(), info.size());
    buf[t_len + info.size()] = counter++;
    const auto block = hmac_sha256(prk, {buf, t_len + info.size() + 1});
    t = block;
    t_len = kSha256Size;
    const std::size_t n = std::min(kSha256Size, out.size() - done);
    std::memcpy(out.data() + done, t.data(), n);
    done += n;
  }
  secure_wipe(t.data(), t.size());
  secure_wipe(buf, need);
  return true;
}

bool hkdf(std::span<const std::uint8_t> salt, std::span<const std::uint8_t> ikm,
          std::span<const std::uint8_t> info, std::span<std::uint8_t> out) {
  const Key32 prk = hkdf_extract(salt, ikm);
  return hkdf_expand(prk.span(), info, out);
}

bool hkdf_expand_label(std::span<const std::uint8_t> secret, std::string_view label,
                       std::span<const std::uint8_t> context, std::span<std::uint8_t> out) {
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
  std::memcpy(info.data() + n, label.data(), label.size());
  n += label.size();
  info[n++] = static_cast<std::uint8_t>(context.size());
  if (!context.empty()) std::memcpy(info.data() + n, context.data(), context.size());
  n += context.size();
  return hkdf_expand(secret, {info.data(), n}, out);
}

Key32 derive_secret(std::span<const std::uint8_t> secret, std::string_view label,
                    std::span<const std::uint8_t, 32> transcript_hash) {
  Key32 out;
  hkdf_expand_label(secret, label, transcript_hash, out.span());
  return out;
}

}  // namespace qeli::crypto
