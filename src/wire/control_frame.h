// In-tunnel control frames (0.7.16 `ctrl.rs`; docs/PROTOCOL.md "Control frames").
//
//   frame = C1 9B ‖ type(1) ‖ len(1) ‖ body(len)
//
// A decrypted record plaintext is a heartbeat (empty), a control frame (starts C1 9B and
// has ≥ 4 bytes; 0xC is neither IPv4 nor IPv6) or an IP packet. Unknown types parse (so
// they can be skipped by length) and are ignored by callers. A frame whose `len` runs
// past the plaintext is malformed; bytes after the body are ignored (as 0.7.16 does).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/bytes.h"
#include "base/result.h"
#include "wire/limits.h"

namespace qeli::wire {

enum class PlaintextKind : std::uint8_t { kHeartbeat, kControl, kPacket };

/// What a decrypted plaintext is (see the header comment).
PlaintextKind classify_plaintext(ByteSpan plaintext);

enum class ControlError : std::uint8_t {
  kNotControl,  ///< no C1 9B magic or shorter than the 4-byte header
  kTruncated,   ///< len runs past the plaintext
  kBadBody,     ///< known type, body of the wrong size or charset
};
const char* to_string(ControlError e);

/// A parsed frame; `body` points into the plaintext given to parse_control_frame.
struct ControlFrame {
  std::uint8_t type;
  ByteSpan body;
};

Result<ControlFrame, ControlError> parse_control_frame(ByteSpan plaintext);

/// Type 1 body: the reported MTU, clamped to [kMinTunnelMtu, kMaxTunnelMtu].
Result<std::uint16_t, ControlError> parse_mtu_report(const ControlFrame& f);

struct ClientInfo {
  std::string version;   ///< 1..32 of [A-Za-z0-9.+-_]
  std::string platform;  ///< 1..16 of [a-z0-9-]
};
/// Type 2 body: ver_len(1) ‖ version ‖ platform; both strings validated (self-reported,
/// informational only — never a policy input).
Result<ClientInfo, ControlError> parse_client_info(const ControlFrame& f);

/// Type 0x40 (our extension) body: u32 BE capability bitmask.
Result<std::uint32_t, ControlError> parse_capabilities(const ControlFrame& f);
/// The 32-byte proof of a TLS binding frame (type 0x42).
Result<ByteSpan, ControlError> parse_tls_binding(const ControlFrame& f);
/// A TLS binding frame (4 + 32 bytes).
Bytes build_tls_binding(ByteSpan proof);

/// Builders write the frame into `out` and return its size, or 0 if `out` is too small
/// or a field is invalid. Maximum sizes: MTU report 6, capabilities 8, client info 53.
std::size_t write_mtu_report(std::uint16_t mtu, MutableByteSpan out);
std::size_t write_capabilities(std::uint32_t caps, MutableByteSpan out);
std::size_t write_client_info(std::string_view version, std::string_view platform,
                              MutableByteSpan out);

/// Convenience forms returning a fresh buffer (empty on invalid input).
Bytes build_mtu_report(std::uint16_t mtu);
Bytes build_capabilities(std::uint32_t caps);
Bytes build_client_info(std::string_view version, std::string_view platform);

}  // namespace qeli::wire
