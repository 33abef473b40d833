#include "transport/udp_gso.h"

#include <algorithm>
#include <cstring>

namespace qeli::transport {
namespace {

std::size_t family_limit(const SockAddr* to) {
  return to != nullptr && to->family() == AF_INET6 ? kMaxUdpPayloadV6 : kMaxUdpPayloadV4;
}

bool same_destination(const SockAddr* a, const SockAddr* b) {
  return a == b || (a != nullptr && b != nullptr && *a == *b);
}

}  // namespace

GsoPlan plan_gso(std::span<const OutDatagram> in, bool gso, const GsoLimits& limits,
                 std::span<GsoMessage> out) {
  GsoPlan plan;
  std::size_t i = 0;
  while (i < in.size() && plan.messages < out.size()) {
    GsoMessage m;
    m.first = i;
    m.count = 1;
    m.bytes = in[i].len;
    const std::size_t seg = in[i].len;
    const std::size_t cap = std::min(limits.max_bytes, family_limit(in[i].to));
    std::size_t j = i + 1;
    // The size fits a u16 and is non-zero, or the datagram travels alone.
    const bool can_grow = gso && seg > 0 && seg <= 0xffff && seg <= cap;
    while (can_grow && j < in.size() && m.count < limits.max_segments &&
           same_destination(in[j].to, in[i].to) && in[j].len <= seg && in[j].len > 0 &&
           m.bytes + in[j].len <= cap) {
      m.bytes += in[j].len;
      ++m.count;
      const bool shorter = in[j].len < seg;
      ++j;
      if (shorter) break;  // only the last datagram may be shorter
    }
    if (m.count > 1) m.gso_size = static_cast<std::uint16_t>(seg);
    out[plan.messages++] = m;
    plan.datagrams += m.count;
    i = j;
  }
  return plan;
}

std::size_t segment_cmsg_space() { return CMSG_SPACE(sizeof(std::uint16_t)); }

std::size_t write_segment_cmsg(std::uint8_t* control, std::uint16_t gso_size) {
  std::memset(control, 0, segment_cmsg_space());
  auto* c = reinterpret_cast<cmsghdr*>(control);
  c->cmsg_level = kSolUdp;
  c->cmsg_type = kUdpSegment;
  c->cmsg_len = CMSG_LEN(sizeof(std::uint16_t));
  std::memcpy(CMSG_DATA(c), &gso_size, sizeof(gso_size));
  return segment_cmsg_space();
}

std::size_t parse_gro_size(const msghdr& msg) {
  if (msg.msg_control == nullptr || msg.msg_controllen < sizeof(cmsghdr)) return 0;
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr;
       c = CMSG_NXTHDR(const_cast<msghdr*>(&msg), c)) {
    if (c->cmsg_level != kSolUdp || c->cmsg_type != kUdpGro) continue;
    if (c->cmsg_len == CMSG_LEN(sizeof(int))) {
      int v = 0;
      std::memcpy(&v, CMSG_DATA(c), sizeof(v));
      return v > 0 && v <= 0xffff ? static_cast<std::size_t>(v) : 0;
    }
    if (c->cmsg_len == CMSG_LEN(sizeof(std::uint16_t))) {
      std::uint16_t v = 0;
      std::memcpy(&v, CMSG_DATA(c), sizeof(v));
      return v;
    }
    return 0;
  }
  return 0;
}

const char* to_string(SplitError e) {
  switch (e) {
    case SplitError::kOverflow: return "splitting a coalesced read would overwrite an unread one";
    case SplitError::kSlotTooSmall: return "a datagram does not fit its receive slot";
  }
  return "?";
}

SplitResult split_gro(std::span<RecvSlot> slots, std::size_t first, std::size_t filled) {
  SplitResult r;
  std::size_t cursor = 0;
  for (std::size_t i = first; i < first + filled && i < slots.size(); ++i) {
    RecvSlot& src = slots[i];
    if (src.truncated) {
      ++r.truncated;
      continue;
    }
    const std::size_t total = src.len;
    const std::size_t seg = src.gso_size == 0 ? std::max<std::size_t>(total, 1) : src.gso_size;
    const SockAddr from = src.from;  // src may be overwritten below when cursor == i
    std::size_t start = 0;
    do {
      const std::size_t n = std::min(seg, total - start);
      // cursor == i is allowed: the datagram moves to the front of its own slot, over bytes
      // already split (memmove handles the overlap).
      if (cursor > i) {
        r.ok = false;
        r.error = SplitError::kOverflow;
        r.datagrams = cursor;
        return r;
      }
      RecvSlot& dst = slots[cursor];
      if (n > dst.capacity) {
        r.ok = false;
        r.error = SplitError::kSlotTooSmall;
        r.datagrams = cursor;
        return r;
      }
      if (dst.data != src.data || start != 0) std::memmove(dst.data, src.data + start, n);
      dst.len = static_cast<std::uint32_t>(n);
      dst.gso_size = 0;
      dst.truncated = false;
      dst.from = from;
      ++cursor;
      start += n;
    } while (start < total);
  }
  r.datagrams = cursor;
  return r;
}

}  // namespace qeli::transport
