#include "dns/message.h"

#include <algorithm>

#include "base/endian.h"
#include "dns/limits.h"
#include "dns/name.h"

namespace qeli::dns {
namespace {

constexpr std::size_t kRrFixed = 10;  // TYPE CLASS TTL RDLENGTH

// Reads QNAME QTYPE QCLASS at `off` (the question section's only entry).
bool read_question(ByteSpan msg, std::size_t& off, Question& q) {
  if (!read_name(msg, off, q.name) || off + 4 > msg.size()) return false;
  q.qtype = load_be16(msg.data() + off);
  q.qclass = load_be16(msg.data() + off + 2);
  off += 4;
  return true;
}

struct Rr {
  std::uint16_t type = 0;
  std::uint16_t rclass = 0;
  std::size_t ttl_at = 0;
  std::size_t rdata_at = 0;
  std::uint16_t rdlength = 0;
};

// Reads one RR's owner name and fixed fields and skips its RDATA; `scratch` takes the name.
Result<Rr, ParseError> read_rr(ByteSpan msg, std::size_t& off, std::string& scratch) {
  if (!read_name(msg, off, scratch)) return fail(ParseError::kBadName);
  if (off + kRrFixed > msg.size()) return fail(ParseError::kBadRecord);
  Rr rr;
  rr.type = load_be16(msg.data() + off);
  rr.rclass = load_be16(msg.data() + off + 2);
  rr.ttl_at = off + 4;
  rr.rdlength = load_be16(msg.data() + off + 8);
  rr.rdata_at = off + kRrFixed;
  if (rr.rdata_at + rr.rdlength > msg.size()) return fail(ParseError::kBadRecord);
  off = rr.rdata_at + rr.rdlength;
  return rr;
}

// SOA RDATA: MNAME RNAME SERIAL REFRESH RETRY EXPIRE MINIMUM (RFC 1035 §3.3.13); the names
// may be compressed, and must end inside the RDATA.
bool soa_minimum(ByteSpan msg, const Rr& rr, std::uint32_t& minimum, std::string& scratch) {
  std::size_t p = rr.rdata_at;
  const std::size_t end = rr.rdata_at + rr.rdlength;
  if (!read_name(msg, p, scratch) || p > end || !read_name(msg, p, scratch) || p + 20 != end) {
    return false;
  }
  minimum = load_be32(msg.data() + p + 16);
  return true;
}

}  // namespace

const char* to_string(ParseError e) {
  switch (e) {
    case ParseError::kShort: return "short";
    case ParseError::kTooLarge: return "too large";
    case ParseError::kNotQuery: return "not a query";
    case ParseError::kNotResponse: return "not a response";
    case ParseError::kBadOpcode: return "opcode not QUERY";
    case ParseError::kQuestionCount: return "question count not 1";
    case ParseError::kBadName: return "bad name";
    case ParseError::kBadRecord: return "bad record";
    case ParseError::kTrailing: return "trailing bytes";
  }
  return "?";
}

Result<Header, ParseError> read_header(ByteSpan msg) {
  if (msg.size() < kHeaderSize) return fail(ParseError::kShort);
  const std::uint8_t* p = msg.data();
  Header h;
  h.id = load_be16(p);
  h.flags = load_be16(p + 2);
  h.qdcount = load_be16(p + 4);
  h.ancount = load_be16(p + 6);
  h.nscount = load_be16(p + 8);
  h.arcount = load_be16(p + 10);
  return h;
}

std::size_t Query::udp_limit() const {
  if (!edns) return kClassicUdpPayload;
  return std::clamp<std::size_t>(edns_udp_size, kClassicUdpPayload, kMaxUdpReply);
}

Result<Query, ParseError> parse_query(ByteSpan msg) {
  if (msg.size() > kMaxQuery) return fail(ParseError::kTooLarge);
  auto h = read_header(msg);
  if (!h) return fail(h.error());
  Query q;
  q.header = *h;
  if ((h->flags & flag::kQr) != 0) return fail(ParseError::kNotQuery);
  if (h->opcode() != 0) return fail(ParseError::kBadOpcode);
  if (h->qdcount != 1) return fail(ParseError::kQuestionCount);
  if (h->ancount != 0) return fail(ParseError::kBadRecord);
  std::size_t off = kHeaderSize;
  if (!read_question(msg, off, q.question)) return fail(ParseError::kBadName);
  q.question_end = off;
  std::string scratch;
  const std::size_t rrs = std::size_t{h->nscount} + h->arcount;
  for (std::size_t i = 0; i < rrs; ++i) {
    auto rr = read_rr(msg, off, scratch);
    if (!rr) return fail(rr.error());
    if (rr->type != rrtype::kOpt) continue;
    // OPT: only in the additional section, owner the root, once (RFC 6891 §6.1.1).
    if (i < h->nscount || q.edns || scratch != std::string(1, '\0')) {
      return fail(ParseError::kBadRecord);
    }
    q.edns = true;
    q.edns_udp_size = rr->rclass;
    q.dnssec_ok = (load_be32(msg.data() + rr->ttl_at) & 0x8000) != 0;
  }
  if (off != msg.size()) return fail(ParseError::kTrailing);
  return q;
}

Result<Response, ParseError> parse_response(ByteSpan msg) {
  if (msg.size() > kMaxMessage) return fail(ParseError::kTooLarge);
  auto h = read_header(msg);
  if (!h) return fail(h.error());
  Response r;
  r.header = *h;
  if ((h->flags & flag::kQr) == 0) return fail(ParseError::kNotResponse);
  if (h->opcode() != 0) return fail(ParseError::kBadOpcode);
  if (h->qdcount != 1) return fail(ParseError::kQuestionCount);
  std::size_t off = kHeaderSize;
  if (!read_question(msg, off, r.question)) return fail(ParseError::kBadName);
  r.question_end = off;
  std::string scratch;
  const std::size_t an = h->ancount, ns = h->nscount;
  const std::size_t rrs = an + ns + h->arcount;
  r.ttl_offsets.reserve(std::min<std::size_t>(rrs, msg.size() / (kRrFixed + 1)));
  bool have_ttl = false;
  bool seen_opt = false;
  for (std::size_t i = 0; i < rrs; ++i) {
    auto rr = read_rr(msg, off, scratch);
    if (!rr) return fail(rr.error());
    if (rr->type == rrtype::kOpt) {
      if (i < an + ns || seen_opt) return fail(ParseError::kBadRecord);
      seen_opt = true;
      continue;
    }
    // RFC 2181 §8: a TTL with the top bit set is read as zero (never cached).
    std::uint32_t ttl = load_be32(msg.data() + rr->ttl_at);
    if (ttl > 0x7FFFFFFF) ttl = 0;
    r.ttl_offsets.push_back(static_cast<std::uint32_t>(rr->ttl_at));
    r.min_ttl = have_ttl ? std::min(r.min_ttl, ttl) : ttl;
    have_ttl = true;
    if (rr->type == rrtype::kSoa && i >= an && i < an + ns) {
      std::uint32_t minimum = 0;
      if (!soa_minimum(msg, *rr, minimum, scratch)) return fail(ParseError::kBadRecord);
      const std::uint32_t neg = std::min(ttl, minimum);
      r.soa_negative_ttl = r.has_soa ? std::min(r.soa_negative_ttl, neg) : neg;
      r.has_soa = true;
    }
  }
  if (off != msg.size()) return fail(ParseError::kTrailing);
  return r;
}

}  // namespace qeli::dns
