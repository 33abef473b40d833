#include "tls/extensions.h"

#include <algorithm>

#include "wire/byte_io.h"

namespace qeli::tls {

using wire::ByteReader;

Result<std::vector<Extension>, TlsError> parse_extension_block(ByteSpan block) {
  std::vector<Extension> out;
  ByteReader r(block);
  while (!r.empty()) {
    Extension e{};
    if (!r.u16(e.type) || !r.vec16(e.data)) return fail(TlsError::kDecode);
    for (const Extension& seen : out) {
      if (seen.type == e.type) return fail(TlsError::kIllegalParameter);
    }
    out.push_back(e);
  }
  return out;
}

const Extension* find_extension(const std::vector<Extension>& exts, std::uint16_t type) {
  for (const Extension& e : exts) {
    if (e.type == type) return &e;
  }
  return nullptr;
}

Result<std::vector<std::uint16_t>, TlsError> parse_u16_values(ByteSpan values) {
  if (values.size() % 2 != 0) return fail(TlsError::kDecode);
  std::vector<std::uint16_t> out;
  out.reserve(values.size() / 2);
  for (std::size_t i = 0; i < values.size(); i += 2) {
    out.push_back(static_cast<std::uint16_t>((values[i] << 8) | values[i + 1]));
  }
  return out;
}

Result<std::vector<std::uint16_t>, TlsError> parse_u16_list(ByteSpan data, int length_width) {
  ByteReader r(data);
  ByteSpan list;
  const bool ok = length_width == 1 ? r.vec8(list) : r.vec16(list);
  if (!ok || !r.empty()) return fail(TlsError::kDecode);
  return parse_u16_values(list);
}

Result<std::optional<std::string_view>, TlsError> parse_server_name(ByteSpan data) {
  if (data.empty()) return std::optional<std::string_view>{};
  ByteReader r(data);
  ByteSpan list;
  if (!r.vec16(list) || !r.empty()) return fail(TlsError::kDecode);
  ByteReader lr(list);
  std::optional<std::string_view> host;
  while (!lr.empty()) {
    std::uint8_t type = 0;
    ByteSpan name;
    if (!lr.u8(type) || !lr.vec16(name)) return fail(TlsError::kDecode);
    if (type == 0) {
      if (host || name.empty()) return fail(TlsError::kIllegalParameter);
      host = std::string_view(reinterpret_cast<const char*>(name.data()), name.size());
    }
  }
  return host;
}

Result<std::vector<std::string_view>, TlsError> parse_alpn(ByteSpan data) {
  ByteReader r(data);
  ByteSpan list;
  if (!r.vec16(list) || !r.empty() || list.empty()) return fail(TlsError::kDecode);
  std::vector<std::string_view> out;
  ByteReader lr(list);
  while (!lr.empty()) {
    ByteSpan name;
    if (!lr.vec8(name) || name.empty()) return fail(TlsError::kDecode);
    out.emplace_back(reinterpret_cast<const char*>(name.data()), name.size());
  }
  return out;
}

Result<std::vector<KeyShareEntry>, TlsError> parse_client_key_shares(ByteSpan data) {
  ByteReader r(data);
  ByteSpan list;
  if (!r.vec16(list) || !r.empty()) return fail(TlsError::kDecode);
  std::vector<KeyShareEntry> out;
  ByteReader lr(list);
  while (!lr.empty()) {
    KeyShareEntry e{};
    if (!lr.u16(e.group) || !lr.vec16(e.key_exchange) || e.key_exchange.empty()) {
      return fail(TlsError::kDecode);
    }
    for (const KeyShareEntry& seen : out) {
      if (seen.group == e.group) return fail(TlsError::kIllegalParameter);
    }
    out.push_back(e);
  }
  return out;
}

Result<KeyShareEntry, TlsError> parse_server_key_share(ByteSpan data, bool hello_retry) {
  ByteReader r(data);
  KeyShareEntry e{};
  if (!r.u16(e.group)) return fail(TlsError::kDecode);
  if (!hello_retry && (!r.vec16(e.key_exchange) || e.key_exchange.empty())) {
    return fail(TlsError::kDecode);
  }
  if (!r.empty()) return fail(TlsError::kDecode);
  return e;
}

}  // namespace qeli::tls
