// DNS messages (RFC 1035 §4.1, EDNS(0) RFC 6891 §6): a strict, bounds-checked reader for
// the two shapes the proxy handles — a client's query and an upstream's response.
//
//   header   ID(2) flags(2) QDCOUNT(2) ANCOUNT(2) NSCOUNT(2) ARCOUNT(2)
//   question QNAME QTYPE(2) QCLASS(2)                  (exactly one, as every resolver sends)
//   RRs      NAME TYPE(2) CLASS(2) TTL(4) RDLENGTH(2) RDATA   × (AN + NS + AR)
//
// Every count and length is checked against the message before it is used; a message
// with bytes after its last RR is refused too (nothing we forward is left unparsed). The
// parsers never allocate more than the question's name and one offset per RR.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "base/bytes.h"
#include "base/result.h"

namespace qeli::dns {

namespace flag {
inline constexpr std::uint16_t kQr = 0x8000;  ///< a response
inline constexpr std::uint16_t kAa = 0x0400;
inline constexpr std::uint16_t kTc = 0x0200;  ///< truncated
inline constexpr std::uint16_t kRd = 0x0100;  ///< recursion desired
inline constexpr std::uint16_t kRa = 0x0080;  ///< recursion available
inline constexpr std::uint16_t kAd = 0x0020;
inline constexpr std::uint16_t kCd = 0x0010;  ///< checking disabled (DNSSEC)
}  // namespace flag

enum class Rcode : std::uint8_t {
  kNoError = 0,
  kFormErr = 1,
  kServFail = 2,
  kNxDomain = 3,
  kNotImp = 4,
  kRefused = 5,
};

namespace rrtype {
inline constexpr std::uint16_t kA = 1;
inline constexpr std::uint16_t kSoa = 6;
inline constexpr std::uint16_t kAaaa = 28;
inline constexpr std::uint16_t kOpt = 41;  ///< EDNS(0) pseudo-RR (RFC 6891)
inline constexpr std::uint16_t kAny = 255;
}  // namespace rrtype
inline constexpr std::uint16_t kClassIn = 1;

enum class ParseError : std::uint8_t {
  kShort,          ///< fewer than 12 bytes, or a field runs past the end
  kTooLarge,       ///< a query above kMaxQuery
  kNotQuery,       ///< QR set in what should be a query
  kNotResponse,    ///< QR clear in what should be a response
  kBadOpcode,      ///< not a standard QUERY (opcode 0)
  kQuestionCount,  ///< QDCOUNT ≠ 1
  kBadName,        ///< see read_name()
  kBadRecord,      ///< an RR or its RDATA does not fit, or a malformed SOA / OPT
  kTrailing,       ///< bytes after the last RR
};
const char* to_string(ParseError e);

struct Header {
  std::uint16_t id = 0;
  std::uint16_t flags = 0;
  std::uint16_t qdcount = 0, ancount = 0, nscount = 0, arcount = 0;
  std::uint8_t opcode() const { return static_cast<std::uint8_t>((flags >> 11) & 0xF); }
  Rcode rcode() const { return static_cast<Rcode>(flags & 0xF); }
};

/// Reads the 12-byte header (no other check). kShort below 12 bytes.
Result<Header, ParseError> read_header(ByteSpan msg);

struct Question {
  std::string name;  ///< canonical wire form (lower case)
  std::uint16_t qtype = 0;
  std::uint16_t qclass = 0;
  bool operator==(const Question&) const = default;
};

/// A client's query.
struct Query {
  Header header;
  Question question;
  std::size_t question_end = 0;     ///< offset after QCLASS: bytes [12, question_end) are the
                                    ///< question as the client wrote it (its case kept)
  bool edns = false;                ///< an OPT RR was present
  std::uint16_t edns_udp_size = 0;  ///< its requestor's payload size (CLASS field)
  bool dnssec_ok = false;           ///< its DO bit
  /// The largest UDP answer this client takes: 512 without EDNS, else its payload size
  /// within [512, kMaxUdpReply].
  std::size_t udp_limit() const;
};

/// Parses a query: QR clear, opcode QUERY, exactly one question, no answer records,
/// at most one OPT in the additional section, at most kMaxQuery bytes.
Result<Query, ParseError> parse_query(ByteSpan msg);

/// An upstream's response, as much as the proxy needs to match, cache and age it.
struct Response {
  Header header;
  Question question;
  std::size_t question_end = 0;
  /// The offset of the TTL field of every RR except OPT (whose "TTL" carries flags):
  /// what a cache rewrites when it ages the message.
  std::vector<std::uint32_t> ttl_offsets;
  std::uint32_t min_ttl = 0;           ///< over the RRs above (0 when there are none)
  bool has_soa = false;                ///< an SOA in the authority section
  std::uint32_t soa_negative_ttl = 0;  ///< min(SOA TTL, SOA MINIMUM), RFC 2308 §5
};

/// Parses a response: QR set, opcode QUERY, exactly one question, every RR bounded (and
/// an authority SOA's RDATA parsed for MINIMUM), nothing after the last RR.
Result<Response, ParseError> parse_response(ByteSpan msg);

}  // namespace qeli::dns
