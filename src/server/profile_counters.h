// ProfileCounters: what a profile counts about connections before and around their
// sessions (the per-session counters live in tunnel::SessionCounters). Shown by
// `qeli stats`, the control API and /metrics.
#pragma once

#include <atomic>
#include <cstdint>

namespace qeli::server {

/// Why connections ended before or during authentication (counted; the wire shows nothing).
struct ProfileCounters {
  /// TCP connections accepted (a UDP profile has no accept: its first count is a
  /// half-open handshake, then sessions_started).
  std::atomic<std::uint64_t> accepted{0};
  std::atomic<std::uint64_t> handshake_failed{0};
  std::atomic<std::uint64_t> auth_failed{0};
  std::atomic<std::uint64_t> locked_out{0};
  std::atomic<std::uint64_t> over_capacity{0};
  std::atomic<std::uint64_t> sessions_started{0};
  std::atomic<std::uint64_t> tun_no_route{0};
  std::atomic<std::uint64_t> udp_half_open_evicted{0};
  /// UDP ClientHellos dropped before any crypto: over the per-source-IP new-session rate
  /// (perf.connection.new_session_rate_*), or over a worker's pre-auth crypto budget.
  std::atomic<std::uint64_t> new_session_rate_limited{0};
  std::atomic<std::uint64_t> preauth_crypto_shed{0};
  /// UDP return routability (docs/PROTOCOL.md §11): hellos from unverified sources that
  /// found the unverified share of the login slots full (challenged or not), challenges
  /// (msg 7) sent, sources a valid cookie echo (msg 8) verified (the echoes a verified
  /// client repeats before its retransmits are not counted again), and echoes refused
  /// (malformed, of another address, or expired).
  std::atomic<std::uint64_t> udp_unverified_refused{0};
  std::atomic<std::uint64_t> udp_cookie_challenges{0};
  std::atomic<std::uint64_t> udp_cookies_accepted{0};
  std::atomic<std::uint64_t> udp_cookies_refused{0};
  /// TCP accept() failures for lack of descriptors or memory (EMFILE, ENFILE, …).
  std::atomic<std::uint64_t> accept_no_resources{0};
  /// Stream bonding (TCP): connections that JOINed a live session, and JOINs refused (an
  /// unknown or ended token, over max_streams, a missing or wrong proof of the keys).
  std::atomic<std::uint64_t> streams_joined{0};
  std::atomic<std::uint64_t> joins_refused{0};
  /// UDP roaming (docs/PROTOCOL.md §20): sessions that moved to a new client address
  /// without a handshake, and datagrams that named a session's connection id from a new
  /// address but failed its AEAD or replay check (nothing moved).
  std::atomic<std::uint64_t> udp_roams{0};
  std::atomic<std::uint64_t> udp_roams_refused{0};
  /// TCP resume (docs/PROTOCOL.md §22): sessions a new connection took over without a
  /// new AUTH, and sessions whose grace period ran out (or that found no room to wait).
  std::atomic<std::uint64_t> tcp_resumes{0};
  std::atomic<std::uint64_t> tcp_resume_expired{0};
};

}  // namespace qeli::server
