#include "tunio/offload_coalesce.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "base/endian.h"
#include "tunio/checksum.h"
#include "tunio/ip_header.h"

namespace qeli::tunio {

namespace {
constexpr std::uint32_t kNoItem = 0xffffffff;
constexpr std::size_t kKeyLen = 44;

enum class Kind : std::uint8_t { none, tcp4, tcp6, udp4, udp6 };

bool kind_v4(Kind k) { return k == Kind::tcp4 || k == Kind::udp4; }
bool kind_tcp(Kind k) { return k == Kind::tcp4 || k == Kind::tcp6; }

struct Candidate {
  Kind kind = Kind::none;
  std::uint16_t iph = 0;
  std::uint16_t l4h = 0;
  std::uint32_t payload = 0;
  std::uint32_t seq = 0;
  bool psh = false;
};

// Is `p` a packet GRO may merge? (reference §2.5.1-2.5.3; checklist 21, 22, 26)
Candidate classify(ByteSpan p, const GroOptions& opt) {
  Candidate c;
  const std::size_t len = p.size();
  if (len < kIpv4MinHeader + kUdpHeader || len > kMaxIpPacket) return c;
  const std::uint8_t* ip = p.data();
  std::uint8_t proto;
  if (ip_version(ip) == 4) {
    if (ipv4_ihl_bytes(ip) != kIpv4MinHeader) return c;  // options: not a candidate
    if (load_be16(ip + kIpv4TotalLenOff) != len) return c;
    const std::uint16_t frag = load_be16(ip + kIpv4FragOff);
    if (frag & (kIpv4MoreFragments | kIpv4FragOffsetMask)) return c;
    c.iph = kIpv4MinHeader;
    proto = ip[kIpv4ProtoOff];
  } else if (ip_version(ip) == 6) {
    if (len < kIpv6Header + kUdpHeader) return c;
    if (std::size_t{load_be16(ip + kIpv6PayloadLenOff)} + kIpv6Header != len) return c;
    c.iph = kIpv6Header;
    proto = ip[kIpv6NextHeaderOff];  // extension headers: not a candidate
  } else {
    return c;
  }
  const bool v4 = c.iph == kIpv4MinHeader;
  const std::uint8_t* l4 = ip + c.iph;
  if (proto == kIpProtoTcp && opt.tcp) {
    if (len < c.iph + kTcpMinHeader) return c;
    const std::size_t l4h = tcp_header_bytes(l4);
    if (l4h < kTcpMinHeader || l4h > kTcpMaxHeader || c.iph + l4h >= len) return c;
    const std::uint8_t flags = l4[kTcpFlagsOff];
    if (flags != kTcpAck && flags != (kTcpAck | kTcpPsh)) return c;
    if (l4[kTcpDataOffOff] & 0x0f) return c;  // reserved bits / AccECN: leave alone
    c.l4h = static_cast<std::uint16_t>(l4h);
    c.payload = static_cast<std::uint32_t>(len - c.iph - l4h);
    c.seq = load_be32(l4 + kTcpSeqOff);
    c.psh = (flags & kTcpPsh) != 0;
    c.kind = v4 ? Kind::tcp4 : Kind::tcp6;
  } else if (proto == kIpProtoUdp && opt.udp) {
    if (load_be16(l4 + kUdpLenOff) != len - c.iph || len == c.iph + kUdpHeader) return c;
    // An IPv4 datagram sent without a checksum (RFC 768 zero) cannot be verified, and
    // merging would give it a checksum computed over unverified bytes: leave it alone.
    if (load_be16(l4 + kUdpCsumOff) == 0) return c;
    c.l4h = kUdpHeader;
    c.payload = static_cast<std::uint32_t>(len - c.iph - kUdpHeader);
    c.kind = v4 ? Kind::udp4 : Kind::udp6;
  }
  return c;
}

using Key = std::array<std::uint8_t, kKeyLen>;

Key flow_key(ByteSpan p, const Candidate& c) {
  Key k{};
  k[0] = static_cast<std::uint8_t>(c.kind);
  const std::uint8_t* ip = p.data();
  if (kind_v4(c.kind)) {
    std::memcpy(&k[4], ip + 12, 8);
  } else {
    std::memcpy(&k[4], ip + 8, 32);
  }
  std::memcpy(&k[36], ip + c.iph, 4);                                     // ports
  if (kind_tcp(c.kind)) std::memcpy(&k[40], ip + c.iph + kTcpAckOff, 4);  // ACK number
  return k;
}

std::uint64_t hash_key(const Key& k) {
  std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a; flows come from our own kernel/peer
  for (std::uint8_t b : k) h = (h ^ b) * 0x100000001b3ULL;
  return h ^ (h >> 29);
}

// IP fields that must be equal for two packets to share one header (checklist 21).
bool ip_compatible(const std::uint8_t* a, const std::uint8_t* b, bool v4) {
  if (v4) {
    return a[kIpv4TosOff] == b[kIpv4TosOff] && a[kIpv4TtlOff] == b[kIpv4TtlOff] &&
           a[kIpv4FragOff] == b[kIpv4FragOff];
  }
  return a[0] == b[0] && (a[1] & 0xf0) == (b[1] & 0xf0) &&
         a[kIpv6HopLimitOff] == b[kIpv6HopLimitOff];
}

bool checksums_ok(ByteSpan p, Kind kind, std::size_t iph) {
  if (kind_v4(kind) && !ipv4_header_checksum_ok(p.data(), iph)) return false;
  return l4_checksum_ok(p, iph, kind_tcp(kind) ? kIpProtoTcp : kIpProtoUdp);
}

}  // namespace

struct GroTable::Item {
  Key key;
  std::uint32_t head;  // batch index of the group's head packet
  std::uint32_t prev;  // older item of the same flow, or kNoItem
  std::uint32_t seq;
  std::uint32_t payload_total;
  std::uint32_t merged;
  std::uint16_t gso_size;
  std::uint16_t iph;
  std::uint16_t l4h;
  Kind kind;
  bool psh;
  bool csum_checked;
  bool dead;  // its head failed checksum verification: never merged into
};

struct GroTable::Bucket {
  std::uint32_t generation;
  std::uint32_t item;  // newest item of the flow
  std::uint64_t hash;
};

GroTable::GroTable(std::size_t max_packets) : capacity_(max_packets) {
  if (max_packets == 0 || max_packets > (std::size_t{1} << 30)) std::abort();
  std::size_t n = 1;
  while (n < 2 * max_packets) n <<= 1;
  mask_ = n - 1;
  items_ = std::make_unique<Item[]>(max_packets);
  buckets_ = std::make_unique<Bucket[]>(n);
}

GroTable::~GroTable() = default;
GroTable::GroTable(GroTable&&) noexcept = default;
GroTable& GroTable::operator=(GroTable&&) noexcept = default;

// One gro_coalesce() invocation: the batch, the options, the table.
class GroRun {
 public:
  GroRun(PacketBatch& b, const GroOptions& o, GroTable& t) : batch_(b), opt_(o), t_(t) {
    if (++t_.generation_ == 0) {  // wrapped: really clear once every 2^32 calls
      for (std::size_t i = 0; i <= t_.mask_; ++i) t_.buckets_[i].generation = 0;
      t_.generation_ = 1;
    }
  }

  GroStats run() {
    for (std::size_t i = 0; i < batch_.size(); ++i) {
      if (!batch_.meta(i).is_plain() || batch_.logical(i) != 1) continue;
      const Candidate c = classify(batch_.packet(i), opt_);
      if (c.kind == Kind::none) continue;
      offer(static_cast<std::uint32_t>(i), c);
    }
    finalize();
    return stats_;
  }

 private:
  enum class Outcome { merged, item_bad, packet_bad, refused };

  GroTable::Bucket* find_bucket(const Key& key, std::uint64_t h) {
    for (std::size_t i = h & t_.mask_;; i = (i + 1) & t_.mask_) {
      GroTable::Bucket& b = t_.buckets_[i];
      if (b.generation != t_.generation_) return &b;  // empty slot (table is < half full)
      if (b.hash == h && t_.items_[b.item].key == key) return &b;
    }
  }

  void offer(std::uint32_t idx, const Candidate& c) {
    const Key key = flow_key(batch_.packet(idx), c);
    const std::uint64_t h = hash_key(key);
    GroTable::Bucket* b = find_bucket(key, h);
    const bool known = b->generation == t_.generation_;
    if (known) {
      if (kind_tcp(c.kind)) {
        for (std::uint32_t it = b->item; it != kNoItem; it = t_.items_[it].prev) {
          GroTable::Item& item = t_.items_[it];
          if (item.dead) continue;
          const Outcome o = try_tcp(item, idx, c);
          if (o == Outcome::merged) return;
          if (o == Outcome::packet_bad) return;  // stays alone, never a group head
          if (o == Outcome::item_bad) item.dead = true;
        }
      } else {
        GroTable::Item& item = t_.items_[b->item];
        if (!item.dead) {
          const Outcome o = try_udp(item, idx, c);
          if (o == Outcome::merged || o == Outcome::packet_bad) return;
          if (o == Outcome::item_bad) item.dead = true;
        }
      }
    }
    // Start a new group with this packet as its head.
    GroTable::Item& item = t_.items_[n_items_];
    item.key = key;
    item.head = idx;
    item.prev = known ? b->item : kNoItem;
    item.seq = c.seq;
    item.payload_total = c.payload;
    item.merged = 0;
    item.gso_size = static_cast<std::uint16_t>(c.payload);
    item.iph = c.iph;
    item.l4h = c.l4h;
    item.kind = c.kind;
    item.psh = c.psh;
    item.csum_checked = false;
    item.dead = false;
    b->generation = t_.generation_;
    b->hash = h;
    b->item = n_items_++;
  }

  bool short_tail(const GroTable::Item& item) const {
    return item.payload_total != std::uint32_t{item.gso_size} * (item.merged + 1);
  }

  // Both packets' headers must be interchangeable.
  bool headers_match(const GroTable::Item& item, ByteSpan head, ByteSpan p, const Candidate& c) {
    if (c.l4h != item.l4h || c.iph != item.iph) return false;
    if (!ip_compatible(head.data(), p.data(), kind_v4(c.kind))) return false;
    // TCP options (everything after the fixed 20 bytes) must be byte-identical.
    const std::size_t opt_at = std::size_t{c.iph} + (kind_tcp(c.kind) ? kTcpMinHeader : kUdpHeader);
    const std::size_t opt_len = std::size_t{c.iph} + c.l4h - opt_at;
    return opt_len == 0 || std::memcmp(head.data() + opt_at, p.data() + opt_at, opt_len) == 0;
  }

  // Verifies the group head once and the new packet always.
  Outcome verify(GroTable::Item& item, ByteSpan p, const Candidate& c) {
    if (!item.csum_checked) {
      if (!checksums_ok(batch_.packet(item.head), item.kind, item.iph)) {
        ++stats_.bad_checksum;
        return Outcome::item_bad;
      }
      item.csum_checked = true;
    }
    if (!checksums_ok(p, c.kind, c.iph)) {
      ++stats_.bad_checksum;
      return Outcome::packet_bad;
    }
    return Outcome::merged;
  }

  bool fits(std::size_t slot_index, std::size_t current_len, std::size_t add) const {
    return current_len + add <= std::min(opt_.max_packet, kMaxIpPacket) &&
           add <= batch_.room_after(slot_index);
  }

  Outcome try_tcp(GroTable::Item& item, std::uint32_t idx, const Candidate& c) {
    ByteSpan head = batch_.packet(item.head);
    ByteSpan p = batch_.packet(idx);
    if (!headers_match(item, head, p, c)) return Outcome::refused;
    const std::size_t hdr = std::size_t{c.iph} + c.l4h;
    if (c.seq == item.seq + item.payload_total) {  // append
      if (item.psh || short_tail(item) || c.payload > item.gso_size) return Outcome::refused;
      if (!fits(item.head, head.size(), c.payload)) return Outcome::refused;
      if (Outcome o = verify(item, p, c); o != Outcome::merged) return o;
      append(item, idx, hdr, c.payload);
      if (c.psh) {
        item.psh = true;
        batch_.packet(item.head)[std::size_t{c.iph} + kTcpFlagsOff] |= kTcpPsh;
      }
      return Outcome::merged;
    }
    if (c.seq + c.payload == item.seq) {  // prepend: the new packet becomes the head
      if (c.psh || c.payload < item.gso_size) return Outcome::refused;
      if (c.payload > item.gso_size && item.merged > 0) return Outcome::refused;
      const std::size_t move = head.size() - hdr;  // the group's whole payload
      if (!fits(idx, p.size(), move)) return Outcome::refused;
      if (Outcome o = verify(item, p, c); o != Outcome::merged) return o;
      const std::size_t new_len = p.size() + move;
      batch_.set_length(idx, new_len);
      MutableByteSpan np = batch_.packet(idx);
      std::memcpy(np.data() + p.size(), head.data() + hdr, move);
      if (item.psh) np[std::size_t{c.iph} + kTcpFlagsOff] |= kTcpPsh;
      batch_.set_logical(idx, batch_.logical(item.head) + 1);
      batch_.set_logical(item.head, 0);
      batch_.swap(idx, item.head);  // the head keeps the group's first-seen index
      item.seq = c.seq;
      item.payload_total += c.payload;
      item.gso_size = static_cast<std::uint16_t>(c.payload);
      ++item.merged;
      ++stats_.merged;
      return Outcome::merged;
    }
    return Outcome::refused;
  }

  Outcome try_udp(GroTable::Item& item, std::uint32_t idx, const Candidate& c) {
    ByteSpan head = batch_.packet(item.head);
    ByteSpan p = batch_.packet(idx);
    if (!headers_match(item, head, p, c)) return Outcome::refused;
    if (short_tail(item) || c.payload > item.gso_size) return Outcome::refused;
    if (item.merged + 2 > opt_.max_udp_segments) return Outcome::refused;
    if (!fits(item.head, head.size(), c.payload)) return Outcome::refused;
    if (Outcome o = verify(item, p, c); o != Outcome::merged) return o;
    append(item, idx, std::size_t{c.iph} + kUdpHeader, c.payload);
    return Outcome::merged;
  }

  void append(GroTable::Item& item, std::uint32_t idx, std::size_t hdr, std::size_t payload) {
    const std::size_t old_len = batch_.packet(item.head).size();
    batch_.set_length(item.head, old_len + payload);
    std::memcpy(batch_.packet(item.head).data() + old_len, batch_.packet(idx).data() + hdr,
                payload);
    batch_.set_logical(item.head, batch_.logical(item.head) + 1);
    batch_.set_logical(idx, 0);
    item.payload_total += static_cast<std::uint32_t>(payload);
    ++item.merged;
    ++stats_.merged;
  }

  // Writes the GSO header fields of every group that merged something.
  void finalize() {
    for (std::uint32_t i = 0; i < n_items_; ++i) {
      const GroTable::Item& item = t_.items_[i];
      if (item.merged == 0) continue;
      MutableByteSpan p = batch_.packet(item.head);
      const bool v4 = kind_v4(item.kind);
      const bool tcp = kind_tcp(item.kind);
      const std::size_t l4_len = p.size() - item.iph;
      if (v4) {
        store_be16(p.data() + kIpv4TotalLenOff, static_cast<std::uint16_t>(p.size()));
        write_ipv4_header_checksum(p.data(), item.iph);
      } else {
        store_be16(p.data() + kIpv6PayloadLenOff, static_cast<std::uint16_t>(l4_len));
      }
      std::uint8_t* l4 = p.data() + item.iph;
      if (!tcp) store_be16(l4 + kUdpLenOff, static_cast<std::uint16_t>(l4_len));
      const ByteSpan src = v4 ? ByteSpan(p).subspan(12, 4) : ByteSpan(p).subspan(8, 16);
      const ByteSpan dst = v4 ? ByteSpan(p).subspan(16, 4) : ByteSpan(p).subspan(24, 16);
      const std::uint16_t partial = checksum_fold(pseudo_header_sum(
          src, dst, tcp ? kIpProtoTcp : kIpProtoUdp, static_cast<std::uint32_t>(l4_len)));
      const std::size_t csum_off = tcp ? kTcpCsumOff : kUdpCsumOff;
      store_be16(l4 + csum_off, partial);
      GsoMetadata& m = batch_.meta(item.head);
      m.type = item.kind == Kind::tcp4   ? GsoType::tcp4
               : item.kind == Kind::tcp6 ? GsoType::tcp6
               : item.kind == Kind::udp4 ? GsoType::udp4
                                         : GsoType::udp6;
      m.needs_csum = true;
      m.hdr_len = static_cast<std::uint16_t>(item.iph + item.l4h);
      m.gso_size = item.gso_size;
      m.csum_start = item.iph;
      m.csum_offset = static_cast<std::uint16_t>(csum_off);
      ++stats_.groups;
    }
  }

  PacketBatch& batch_;
  const GroOptions& opt_;
  GroTable& t_;
  std::uint32_t n_items_ = 0;
  GroStats stats_;
};

GroStats gro_coalesce(PacketBatch& batch, const GroOptions& options, GroTable& table) {
  if (batch.size() > table.capacity()) std::abort();
  return GroRun(batch, options, table).run();
}

}  // namespace qeli::tunio
