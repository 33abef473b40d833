// Every limit of the DNS proxy in one place (RFC 1035 §2.3.4 / §4.2, RFC 6891, RFC 7766,
// RFC 2308), units in the types. The proxy forwards one client's question to upstream
// resolvers and answers from a cache; everything it holds is bounded by these values.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace qeli::dns {

// --- message format (RFC 1035) -------------------------------------------------------
inline constexpr std::size_t kHeaderSize = 12;          ///< §4.1.1
inline constexpr std::size_t kMaxNameWire = 255;        ///< §2.3.4, wire form incl. root
inline constexpr std::size_t kMaxLabel = 63;            ///< §2.3.4
inline constexpr std::size_t kMaxPointerHops = 32;      ///< compression pointers per name
inline constexpr std::size_t kMaxMessage = 65535;       ///< a TCP message's 16-bit length
inline constexpr std::size_t kClassicUdpPayload = 512;  ///< §4.2.1, without EDNS
/// The largest UDP answer we send a client, whatever its EDNS buffer says: the DNS flag
/// day 2020 value (fits a 1280-byte IPv6 path with headers), so tunnel fragmentation
/// never eats answers; larger answers go with TC=1 and the client retries over TCP.
inline constexpr std::size_t kMaxUdpReply = 1232;
/// A client question larger than this is refused as malformed (a real query is < 300).
inline constexpr std::size_t kMaxQuery = 4096;

// --- resolver state ------------------------------------------------------------------
inline constexpr std::size_t kMaxUpstreams = 16;          ///< dns.upstream entries
inline constexpr std::size_t kMaxInFlight = 512;          ///< questions waiting upstream
inline constexpr std::size_t kMaxInFlightPerSource = 64;  ///< of one client address
inline constexpr std::size_t kMaxAttemptsPerQuery = 6;    ///< upstream sends of one question
/// One attempt's share of dns.timeout_secs: timeout / min(upstreams, 3), at least this.
inline constexpr auto kMinAttemptTimeout = std::chrono::milliseconds{1000};
/// An upstream that timed out or refused is skipped for this long, doubling on each
/// further failure up to kMaxHoldDown; after it, one query probes it in parallel.
inline constexpr auto kMinHoldDown = std::chrono::seconds{5};
inline constexpr auto kMaxHoldDown = std::chrono::seconds{60};

// --- cache (RFC 1035 §7.4, RFC 2308) --------------------------------------------------
inline constexpr auto kMaxTtl = std::chrono::seconds{3600};         ///< positive answers
inline constexpr auto kMaxNegativeTtl = std::chrono::seconds{900};  ///< RFC 2308 §5
inline constexpr std::size_t kMaxCachedMessage = 16384;             ///< larger: not cached
inline constexpr std::uint32_t kBlockedTtl = 60;                    ///< seconds, blocked A

// --- TCP (RFC 7766) -------------------------------------------------------------------
inline constexpr std::size_t kMaxTcpClients = 128;
inline constexpr std::size_t kMaxPipelinedPerConnection = 16;
inline constexpr auto kTcpIdleTimeout = std::chrono::seconds{10};  ///< §6.2.3
inline constexpr std::size_t kMaxTcpOutput = 256 * 1024;           ///< unsent bytes, per conn

}  // namespace qeli::dns
