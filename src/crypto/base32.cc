#include "crypto/base32.h"

#include <cstdint>

namespace qeli::crypto {
namespace {

constexpr std::string_view kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

int value_of(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a';
  if (c >= '2' && c <= '7') return c - '2' + 26;
  return -1;
}

}  // namespace

std::string base32_encode(ByteSpan data) {
  std::string out;
  out.reserve((data.size() * 8 + 4) / 5);
  std::uint32_t acc = 0;
  int bits = 0;
  for (const std::uint8_t b : data) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out.push_back(kAlphabet[(acc >> bits) & 31U]);
    }
  }
  if (bits > 0) out.push_back(kAlphabet[(acc << (5 - bits)) & 31U]);
  return out;
}

std::optional<Bytes> base32_decode(std::string_view text) {
  while (!text.empty() && (text.back() == '=' || text.back() == ' ')) text.remove_suffix(1);
  Bytes out;
  std::uint32_t acc = 0;
  int bits = 0;
  for (const char c : text) {
    if (c == ' ') continue;
    const int v = value_of(c);
    if (v < 0) return std::nullopt;
    acc = ((acc << 5) | static_cast<std::uint32_t>(v)) & 0xFFFFU;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<std::uint8_t>(acc >> bits));
    }
  }
  // An encoder leaves at most 4 bits over, all zero.
  if (bits >= 5 || (acc & ((1U << bits) - 1U)) != 0) return std::nullopt;
  return out;
}

}  // namespace qeli::crypto
