#include "handshake/auth_message.h"

#include <algorithm>
#include <cstring>

#include "base/utf8.h"

namespace qeli::handshake {

bool valid_utf8(std::string_view s) { return s.find('\0') == std::string_view::npos && is_utf8(s); }

std::optional<Bytes> build_auth(const AuthMessage& m) {
  if (m.user.empty() || m.user.find(':') != std::string::npos) return std::nullopt;
  if (m.user.size() + 1 + m.password.size() > wire::kMaxCredentialsSize) return std::nullopt;
  if (!valid_utf8(m.user) || !valid_utf8(m.password)) return std::nullopt;
  Bytes out(m.key_proof.begin(), m.key_proof.end());
  if (m.device_id) {
    out.push_back(0x00);
    out.insert(out.end(), m.device_id->begin(), m.device_id->end());
  }
  append(out, as_bytes(m.user));
  out.push_back(':');
  append(out, as_bytes(m.password));
  return out;
}

Result<AuthMessage, AuthMessageError> parse_auth(ByteSpan p) {
  if (p.size() < wire::kProofSize + 1) return fail(AuthMessageError::kTooShort);
  AuthMessage m;
  std::copy_n(p.begin(), wire::kProofSize, m.key_proof.begin());
  ByteSpan rest = p.subspan(wire::kProofSize);
  if (rest[0] == 0x00) {
    if (rest.size() < 1 + wire::kDeviceIdSize + 1) return fail(AuthMessageError::kTooShort);
    DeviceId id{};
    std::copy_n(rest.begin() + 1, wire::kDeviceIdSize, id.begin());
    m.device_id = id;
    rest = rest.subspan(1 + wire::kDeviceIdSize);
  }
  if (rest.size() > wire::kMaxCredentialsSize) return fail(AuthMessageError::kTooLong);
  const std::string_view creds(reinterpret_cast<const char*>(rest.data()), rest.size());
  if (!valid_utf8(creds)) return fail(AuthMessageError::kBadUtf8);
  const std::size_t colon = creds.find(':');
  if (colon == std::string_view::npos) return fail(AuthMessageError::kNoColon);
  if (colon == 0) return fail(AuthMessageError::kEmptyUser);
  m.user = std::string(creds.substr(0, colon));
  m.password = std::string(creds.substr(colon + 1));
  return m;
}

Bytes build_join(const JoinMessage& m) {
  Bytes out(as_bytes(kJoinMagic).begin(), as_bytes(kJoinMagic).end());
  out.insert(out.end(), m.token.begin(), m.token.end());
  out.push_back(m.stream_index);
  if (m.proof) out.insert(out.end(), m.proof->begin(), m.proof->end());
  return out;
}

bool is_join(ByteSpan p) {
  return (p.size() == wire::kJoinMessageSize || p.size() == wire::kJoinMessageSize + 32) &&
         std::memcmp(p.data(), kJoinMagic.data(), kJoinMagic.size()) == 0;
}

std::optional<JoinMessage> parse_join(ByteSpan p) {
  if (!is_join(p)) return std::nullopt;
  JoinMessage m;
  std::copy_n(p.begin() + static_cast<long>(kJoinMagic.size()), wire::kJoinTokenSize,
              m.token.begin());
  m.stream_index = p[wire::kJoinMessageSize - 1];
  if (p.size() > wire::kJoinMessageSize) {
    m.proof.emplace();
    std::copy_n(p.begin() + static_cast<long>(wire::kJoinMessageSize), 32, m.proof->begin());
  }
  return m;
}

}  // namespace qeli::handshake
