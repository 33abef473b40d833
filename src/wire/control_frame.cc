#include "wire/control_frame.h"

#include <algorithm>
#include <cstring>

#include "base/endian.h"

namespace qeli::wire {
namespace {

bool valid_version(std::string_view s) {
  if (s.empty() || s.size() > kMaxClientVersionLen) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '-' || c == '+' || c == '_';
  });
}

bool valid_platform(std::string_view s) {
  if (s.empty() || s.size() > kMaxClientPlatformLen) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
  });
}

std::size_t write_header(std::uint8_t type, std::size_t body_len, MutableByteSpan out) {
  if (body_len > kCtrlMaxBody || out.size() < kCtrlHeaderSize + body_len) return 0;
  out[0] = kCtrlMagic0;
  out[1] = kCtrlMagic1;
  out[2] = type;
  out[3] = static_cast<std::uint8_t>(body_len);
  return kCtrlHeaderSize + body_len;
}

Bytes build_with(std::size_t max, const auto& write) {
  Bytes b(max);
  b.resize(write(MutableByteSpan(b)));
  return b;
}

}  // namespace

const char* to_string(ControlError e) {
  switch (e) {
    case ControlError::kNotControl: return "not a control frame";
    case ControlError::kTruncated: return "truncated control frame";
    case ControlError::kBadBody: return "bad control frame body";
  }
  return "?";
}

PlaintextKind classify_plaintext(ByteSpan p) {
  if (p.empty()) return PlaintextKind::kHeartbeat;
  if (p.size() >= kCtrlHeaderSize && p[0] == kCtrlMagic0 && p[1] == kCtrlMagic1) {
    return PlaintextKind::kControl;
  }
  return PlaintextKind::kPacket;
}

Result<ControlFrame, ControlError> parse_control_frame(ByteSpan p) {
  if (classify_plaintext(p) != PlaintextKind::kControl) return fail(ControlError::kNotControl);
  const std::size_t len = p[3];
  if (p.size() - kCtrlHeaderSize < len) return fail(ControlError::kTruncated);
  return ControlFrame{p[2], p.subspan(kCtrlHeaderSize, len)};
}

Result<std::uint16_t, ControlError> parse_mtu_report(const ControlFrame& f) {
  if (f.type != kCtrlMtuReport || f.body.size() != 2) return fail(ControlError::kBadBody);
  const std::size_t mtu =
      std::clamp<std::size_t>(load_be16(f.body.data()), kMinTunnelMtu, kMaxTunnelMtu);
  return static_cast<std::uint16_t>(mtu);
}

Result<ClientInfo, ControlError> parse_client_info(const ControlFrame& f) {
  if (f.type != kCtrlClientInfo || f.body.empty()) return fail(ControlError::kBadBody);
  const std::size_t vlen = f.body[0];
  if (f.body.size() - 1 < vlen) return fail(ControlError::kBadBody);
  const auto* b = reinterpret_cast<const char*>(f.body.data());
  ClientInfo info{std::string(b + 1, vlen), std::string(b + 1 + vlen, f.body.size() - 1 - vlen)};
  if (!valid_version(info.version) || !valid_platform(info.platform)) {
    return fail(ControlError::kBadBody);
  }
  return info;
}

Result<std::uint32_t, ControlError> parse_capabilities(const ControlFrame& f) {
  if (f.type != kCtrlCapabilities || f.body.size() != 4) return fail(ControlError::kBadBody);
  return load_be32(f.body.data());
}

Result<ByteSpan, ControlError> parse_tls_binding(const ControlFrame& f) {
  if (f.type != kCtrlTlsBinding || f.body.size() != kTlsBindingProofSize) {
    return fail(ControlError::kBadBody);
  }
  return f.body;
}

Bytes build_tls_binding(ByteSpan proof) {
  if (proof.size() != kTlsBindingProofSize) return {};
  return build_with(kCtrlHeaderSize + kTlsBindingProofSize, [&](MutableByteSpan o) {
    const std::size_t n = write_header(kCtrlTlsBinding, kTlsBindingProofSize, o);
    if (n != 0) std::memcpy(o.data() + kCtrlHeaderSize, proof.data(), proof.size());
    return n;
  });
}

std::size_t write_mtu_report(std::uint16_t mtu, MutableByteSpan out) {
  const std::size_t n = write_header(kCtrlMtuReport, 2, out);
  if (n != 0) store_be16(out.data() + kCtrlHeaderSize, mtu);
  return n;
}

std::size_t write_capabilities(std::uint32_t caps, MutableByteSpan out) {
  const std::size_t n = write_header(kCtrlCapabilities, 4, out);
  if (n != 0) store_be32(out.data() + kCtrlHeaderSize, caps);
  return n;
}

std::size_t write_client_info(std::string_view version, std::string_view platform,
                              MutableByteSpan out) {
  if (!valid_version(version) || !valid_platform(platform)) return 0;
  const std::size_t n = write_header(kCtrlClientInfo, 1 + version.size() + platform.size(), out);
  if (n == 0) return 0;
  std::uint8_t* b = out.data() + kCtrlHeaderSize;
  b[0] = static_cast<std::uint8_t>(version.size());
  std::memcpy(b + 1, version.data(), version.size());
  std::memcpy(b + 1 + version.size(), platform.data(), platform.size());
  return n;
}

Bytes build_mtu_report(std::uint16_t mtu) {
  return build_with(6, [&](MutableByteSpan o) { return write_mtu_report(mtu, o); });
}
Bytes build_capabilities(std::uint32_t caps) {
  return build_with(8, [&](MutableByteSpan o) { return write_capabilities(caps, o); });
}
Bytes build_client_info(std::string_view version, std::string_view platform) {
  return build_with(kCtrlHeaderSize + 1 + kMaxClientVersionLen + kMaxClientPlatformLen,
                    [&](MutableByteSpan o) { return write_client_info(version, platform, o); });
}

}  // namespace qeli::wire
