// TunRouter: the first step of the downlink — each packet a server TUN queue gives goes
// to the inbox of the session its destination names (qeli 0.7.16 §3.9, §9), on one TUN
// reader thread per queue:
//   1. the session: by an IPv4 destination, or the IPv4 address whose host offset an
//      IPv6 destination of the profile's plan carries (server/ipv6_plan.h); else by the
//      longest network a session claimed from its user's `client_subnet`s
//      (server/subnet_claims.h, either family); IPv6 without pool.ipv6.cidr, or anything
//      else, is dropped (0.7.16 carries IPv4 only);
//   2. no session there → counted in ProfileCounters::tun_no_route; an IPv6 packet for a
//      session that did not negotiate IPv6 (a 0.7.16 client) → its kDropIpv6;
//   3. a client whose MTU is below ours (its MTU report, 0.7.16 §3.5): a packet above it
//      gets an ICMP "fragmentation needed" / ICMPv6 Packet Too Big (rate-limited like
//      Linux's own: 1000/s, burst 50) or userspace IPv4 fragments (fits_peer_mtu);
//   4. the packet goes WHOLE (a super-packet stays one: the session's sender splits or
//      carries it) to the inbox of the stream its flow is pinned to (engine/stream_bond.h);
//      each inbox is woken once per batch.
// The ICMP errors collect in icmp() for the caller to write back into the TUN.
// Threading: one object per reader thread; the SessionTable and counters are shared.
#pragma once

#include <optional>
#include <vector>

#include "base/clock.h"
#include "config/server_config.h"
#include "engine/session_inbox.h"
#include "server/ipv6_plan.h"
#include "server/profile_counters.h"
#include "server/session_table.h"
#include "server/token_bucket.h"
#include "tunio/packet_batch.h"

namespace qeli::server {

class TunRouter {
 public:
  /// `sessions` and `counters` must outlive the router; `profile` is read here only.
  TunRouter(const config::ProfileConfig& profile, SessionTable& sessions,
            ProfileCounters& counters);

  /// Routes every packet of `batch` (a TUN read of at most 64 packets; its packets may be
  /// changed in place: a partial checksum completed before fragmenting). Allocation-free
  /// for batches of up to 64 packets (the inboxes to wake are kept in reserved room).
  void route(tunio::PacketBatch& batch, Instant now);
  /// ICMP errors to write into the TUN (the caller clears it after writing).
  tunio::PacketBatch& icmp() { return icmp_; }

 private:
  SessionTable& sessions_;
  ProfileCounters& counters_;
  const SubnetClaims& claims_;
  const std::optional<Ipv6Plan> plan6_;
  tunio::PacketBatch icmp_;
  tunio::PacketBatch frags_;  ///< scratch: IPv4 fragments of one packet
  TokenBucket icmp_rate_;
  std::vector<engine::SessionInbox*> woken_;
  std::vector<std::shared_ptr<Session>> held_;  ///< sessions found by SubnetClaims this batch
};

}  // namespace qeli::server
