// A profile's TUN as server::SubnetClaims sees it (the HostSubnetRoutes that
// TunSubnetRoutes implements with netlink): what was routed into it and taken back, in
// order, as "+192.168.77.0/24" / "-192.168.77.0/24".
#pragma once

#include <string>
#include <vector>

#include "server/subnet_claims.h"

namespace qeli::test {

struct RecordingSubnetHost : server::HostSubnetRoutes {
  void add(const server::SubnetClaims::Claimed& c) override { log(c, "+"); }
  void remove(const server::SubnetClaims::Claimed& c) override { log(c, "-"); }
  void log(const server::SubnetClaims::Claimed& c, const char* op) {
    for (const auto& n : c.v4) calls.push_back(op + n.to_string());
    for (const auto& n : c.v6) calls.push_back(op + n.to_string());
  }
  std::vector<std::string> calls;
};

}  // namespace qeli::test
