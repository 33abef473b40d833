// Where a client is in its connect loop (client/core/client_core.h): what `qeli status`,
// systemd's STATUS= and an app's state callback show.
#pragma once

namespace qeli::client {

enum class ClientState { kStarting, kConnecting, kConnected, kWaiting, kStopping };

const char* to_string(ClientState s);

}  // namespace qeli::client
