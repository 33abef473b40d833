#include "client/core/client_state.h"

namespace qeli::client {

const char* to_string(ClientState s) {
  switch (s) {
    case ClientState::kStarting: return "starting";
    case ClientState::kConnecting: return "connecting";
    case ClientState::kConnected: return "connected";
    case ClientState::kWaiting: return "waiting to reconnect";
    case ClientState::kStopping: return "stopping";
  }
  return "unknown";
}

}  // namespace qeli::client
