// How the operator commands word a UDP socket's receive figures (control::UdpSocketFigures):
// `qeli status` for a client's UDP session, `qeli stats` for a UDP profile's worker
// sockets — one wording, so the two read alike.
#pragma once

#include <string>

#include "control/api.h"

namespace qeli::cli {

/// "receive buffer 8.0 MiB, 0 kernel drops, 0 grows".
std::string describe_udp_socket(const control::UdpSocketFigures& f);

}  // namespace qeli::cli
