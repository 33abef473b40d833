// The client's goodbye (our close extension, client → server): sent only when the client
// itself stops and the server took the extension.
#include "client/core/farewell.h"

#include <gtest/gtest.h>

namespace qeli::client {
namespace {

using tunnel::SessionEnd;

TEST(ClientFarewell, OnlyOnTheClientsOwnStopWithTheExtension) {
  engine::StopSignal stop;
  EXPECT_FALSE(client_farewell(false, stop)) << "no extension: no hook at all";
  const auto hook = client_farewell(true, stop);
  ASSERT_TRUE(hook);
  // The session ended while the client keeps running (server close, liveness): the
  // engine still calls the hook with kStopped; nothing is said.
  EXPECT_TRUE(hook(SessionEnd::kStopped).empty());
  EXPECT_TRUE(hook(SessionEnd::kClosedByPeer).empty());
  stop.stop();
  // docs/PROTOCOL.md §12: C1 9B ‖ 80 ‖ 01 ‖ 07.
  EXPECT_EQ(to_hex(hook(SessionEnd::kStopped)), "c19b800107");
  EXPECT_TRUE(client_farewell(false, stop) == nullptr);
}

}  // namespace
}  // namespace qeli::client
