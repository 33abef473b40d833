#include "handshake/types.h"

#include <cstdlib>
#include <string_view>

#include "crypto/cpu_features.h"

namespace qeli::handshake {

namespace {
bool env_is_1(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && std::string_view(v) == "1";
}
}  // namespace

std::uint32_t our_extensions(Carrier carrier) {
  if (env_is_1("QELI_DISABLE_EXTENSIONS")) return 0;
  std::uint32_t bits = caps::kCapabilityExchange | caps::kCloseNotify | caps::kIpv6Inside;
  if (carrier == Carrier::kStream) {
    bits |= caps::kGsoSuperPackets | caps::kObfsHeaderXor | caps::kResume;
  }
  if (carrier == Carrier::kDatagram) bits |= caps::kRoam;
  static const bool aes_gcm = crypto::cpu_has_aes_gcm();
  if (aes_gcm && !env_is_1("QELI_DISABLE_AESGCM")) bits |= caps::kAesGcm;
  return bits;
}

const char* to_string(Failure f) {
  switch (f) {
    case Failure::kNone: return "none";
    case Failure::kTimeout: return "handshake timeout";
    case Failure::kPeerClosed: return "peer closed";
    case Failure::kRecordFraming: return "bad record framing";
    case Failure::kBadClientHello: return "bad ClientHello";
    case Failure::kBadServerHello: return "bad ServerHello";
    case Failure::kBadFlightRecord: return "bad server flight record";
    case Failure::kLowOrderPoint: return "low-order X25519 point";
    case Failure::kRecordAuthFailed: return "handshake record failed to authenticate";
    case Failure::kBadProofMessage: return "bad server proof message";
    case Failure::kServerProofInvalid: return "server proof invalid";
    case Failure::kServerKeyMismatch: return "SERVER KEY MISMATCH";
    case Failure::kPinRequired: return "a pinned server key is required";
    case Failure::kClientKeyProofInvalid: return "client key proof invalid";
    case Failure::kBadAuthMessage: return "bad AUTH message";
    case Failure::kBadAuthOk: return "bad AUTH OK";
    case Failure::kBadJoinReply: return "bad JOIN reply";
    case Failure::kRejected: return "rejected";
    case Failure::kUnexpectedMessage: return "unexpected message";
    case Failure::kSealFailed: return "seal failed";
    case Failure::kHelloTooSmall: return "UDP ClientHello under 1200 bytes";
    case Failure::kTlsBindingMismatch:
      return "the server sees another TLS session: something terminates TLS in between";
  }
  return "?";
}

}  // namespace qeli::handshake
