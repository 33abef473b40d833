// TunSubnetRoutes: the host routes behind SubnetClaims — while a session holds one of its
// user's `client_subnet`s, the kernel routes that network into the profile's TUN
// (`<network> dev <tun> proto 113`), so the server itself and, with forwarding, the
// networks behind it reach the client's LAN; when the claim ends the route goes.
//
// A route the host already has for the same network (the operator's own) is kept, never
// replaced, and the claim is logged as unreachable through the tunnel. Failures are
// logged, not fatal: the session still works for its own address.
// Threading: SubnetClaims serializes the calls (its lock, shared by every profile).
#pragma once

#include <memory>
#include <string>

#include "base/result.h"
#include "server/subnet_claims.h"
#include "sys/route_table.h"

namespace qeli::server {

class TunSubnetRoutes final : public HostSubnetRoutes {
 public:
  /// Opens a route socket in the calling thread's network namespace; `profile` names the
  /// log lines. Error: the netlink socket could not be opened.
  static Result<std::unique_ptr<TunSubnetRoutes>, std::string> open(std::string profile,
                                                                    std::string tun);

  void add(const SubnetClaims::Claimed& c) override;
  void remove(const SubnetClaims::Claimed& c) override;

 private:
  TunSubnetRoutes(std::string profile, std::string tun, sys::RouteTable rt)
      : profile_(std::move(profile)), tun_(std::move(tun)), rt_(std::move(rt)) {}
  void change(const std::string& cidr, bool add);

  std::string profile_;
  std::string tun_;
  sys::RouteTable rt_;
};

}  // namespace qeli::server
