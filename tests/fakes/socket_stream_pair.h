// The two ends of a connected AF_UNIX stream socket pair, each a transport::TcpStream
// (non-blocking): a real kernel stream for tests of the stream data path without a
// network. Both ends are invalid (fd -1) if socketpair() failed.
#pragma once

#include <sys/socket.h>

#include "transport/tcp_stream.h"

namespace qeli::test {

struct SocketStreamPair {
  transport::TcpStream a;
  transport::TcpStream b;
};

inline SocketStreamPair socket_stream_pair() {
  int sv[2] = {-1, -1};
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) sv[0] = sv[1] = -1;
  return {transport::TcpStream(transport::UniqueFd(sv[0])),
          transport::TcpStream(transport::UniqueFd(sv[1]))};
}

}  // namespace qeli::test
