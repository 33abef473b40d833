#include "tunio/linux_tun.h"

#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <sys/ioctl.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

#include "tunio/offload_validate.h"

namespace qeli::tunio {

std::string tun_name_taken(const std::string& name) {
  return "TUN device " + name +
         " already exists (another qeli or another program has it, or a persistent device was "
         "left behind: `ip link del " +
         name + "`); give this one another name";
}

namespace {
constexpr std::size_t kMaxQueues = 256;
constexpr std::size_t kKernelMaxUdpSegments = 128;  // UDP_MAX_SEGMENTS since 6.9
constexpr std::size_t kScratchSlots = 64;           // software split on the write path
constexpr unsigned kTsoFlags = kTunFCsum | kTunFTso4 | kTunFTso6;
constexpr unsigned kUsoFlags = kTunFUso4 | kTunFUso6;

static_assert(kTunFCsum == TUN_F_CSUM && kTunFTso4 == TUN_F_TSO4 && kTunFTso6 == TUN_F_TSO6);
// TUN_F_USO4/6 (Linux 6.2) are newer than Debian 12's uapi headers; values from
// include/uapi/linux/if_tun.h.

Error<TunError> err(TunError code, std::string detail) { return {code, std::move(detail)}; }
}  // namespace

std::string_view to_string(TunError e) {
  switch (e) {
    case TunError::would_block: return "would_block";
    case TunError::bad_config: return "bad_config";
    case TunError::open_failed: return "open_failed";
    case TunError::setiff_failed: return "setiff_failed";
    case TunError::bad_queue: return "bad_queue";
    case TunError::batch_too_small: return "batch_too_small";
    case TunError::batch_too_large: return "batch_too_large";
    case TunError::io_error: return "io_error";
  }
  return "unknown";
}

std::string TunCapabilities::describe(std::string_view name) const {
  std::string s = "tun ";
  s += name;
  s += ": queues=" + std::to_string(queues);
  if (!vnet_hdr) return s + " vnet_hdr=off (plain TUN, no offload)";
  s += " vnet_hdr=on tso=";
  s += tso ? "on" : "off";
  s += " uso=";
  s += uso ? "on" : "off";
  char flags[16];
  std::snprintf(flags, sizeof flags, " flags=0x%x", offload_flags);
  return s + flags;
}

struct LinuxTun::Queue {
  Queue(const TunConfig& c)
      : read_cap(c.read_buffer_bytes - kVnetHdrLen),
        buf(std::make_unique_for_overwrite<std::uint8_t[]>(read_cap)),
        gro(c.max_batch),
        scratch(kScratchSlots, 65535) {}
  int fd = -1;
  std::size_t read_cap;
  std::unique_ptr<std::uint8_t[]> buf;  // one super-packet (read side)
  std::uint8_t hdr[kVnetHdrLen] = {};
  // A super-packet read but not yet fully split into a batch.
  bool pending = false;
  std::size_t pending_len = 0;
  GsoMetadata pending_meta;
  SplitCursor pending_cursor;
  // Write side.
  GroOptions gro_options;
  GroTable gro;
  PacketBatch scratch;
  bool sw_active = false;  // a software split interrupted by would_block
  std::size_t sw_index = 0;
  SplitCursor sw_cursor;
  TunQueueCounters counters;
};

LinuxTun::LinuxTun(TunKernel& kernel, TunConfig config)
    : kernel_(&kernel), config_(std::move(config)) {}

LinuxTun::LinuxTun(LinuxTun&& o) noexcept
    : kernel_(o.kernel_),
      config_(std::move(o.config_)),
      name_(std::move(o.name_)),
      caps_(o.caps_),
      queues_(std::move(o.queues_)) {
  o.queues_.clear();
}

LinuxTun& LinuxTun::operator=(LinuxTun&& o) noexcept {
  if (this != &o) {
    close_all();
    kernel_ = o.kernel_;
    config_ = std::move(o.config_);
    name_ = std::move(o.name_);
    caps_ = o.caps_;
    queues_ = std::move(o.queues_);
    o.queues_.clear();
  }
  return *this;
}

LinuxTun::~LinuxTun() { close_all(); }

void LinuxTun::close_all() {
  for (auto& q : queues_) {
    if (q && q->fd >= 0) kernel_->close(q->fd);
  }
  queues_.clear();
}

const TunQueueCounters& LinuxTun::counters(std::size_t q) const { return queues_[q]->counters; }

int LinuxTun::fd(std::size_t q) const { return q < queues_.size() ? queues_[q]->fd : -1; }

namespace {

// IFF_TUN_EXCL on the first queue: TUNSETIFF fails with EBUSY if the device exists.
// Without it a second process with the same name would silently attach itself as one
// more queue of someone else's device (and add its address to it). Later queues attach
// to the device the first one created, so they must not carry it.
constexpr short kExclusive = static_cast<short>(IFF_TUN_EXCL);

// Opens one queue of device `name` with `flags`; returns the fd and the kernel's name.
Result<int, Error<TunError>> open_queue(TunKernel& k, const std::string& name, short flags,
                                        std::string& actual) {
  const int fd = k.open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return fail(
        err(TunError::open_failed, std::string("open /dev/net/tun: ") + std::strerror(-fd)));
  struct ifreq ifr;
  std::memset(&ifr, 0, sizeof ifr);
  std::memcpy(ifr.ifr_name, name.data(), name.size());  // size checked by open()
  ifr.ifr_flags = flags;
  const int r = k.ioctl_ptr(fd, TUNSETIFF, &ifr);
  if (r < 0) {
    k.close(fd);
    if (r == -EBUSY && (flags & kExclusive) != 0) {
      return fail(err(TunError::setiff_failed, tun_name_taken(name)));
    }
    return fail(err(TunError::setiff_failed, "TUNSETIFF " + name + ": " + std::strerror(-r)));
  }
  ifr.ifr_name[IFNAMSIZ - 1] = '\0';
  actual = ifr.ifr_name;
  return fd;
}

}  // namespace

Result<LinuxTun, Error<TunError>> LinuxTun::adopt(int fd, const TunConfig& config,
                                                  TunKernel& kernel) {
  if (fd < 0) return fail(err(TunError::bad_config, "no fd to adopt"));
  if (config.mtu < 68 || config.mtu > 65535) {
    kernel.close(fd);
    return fail(err(TunError::bad_config, "mtu must be 68..65535"));
  }
  if (config.max_batch == 0 || config.max_batch > 65536) {
    kernel.close(fd);
    return fail(err(TunError::bad_config, "max_batch must be 1..65536"));
  }
  // The event loops poll; a blocking fd would stall them (a fake kernel's fd may not be
  // a real one: then this fails harmlessly).
  if (const int fl = ::fcntl(fd, F_GETFL); fl >= 0) (void)::fcntl(fd, F_SETFL, fl | O_NONBLOCK);
  TunConfig c = config;
  c.queues = 1;
  c.offload = false;
  c.read_buffer_bytes = std::max(c.read_buffer_bytes, kMinReadBuffer);
  LinuxTun tun(kernel, c);
  tun.caps_.vnet_hdr = false;
  tun.caps_.queues = 1;
  tun.name_ = c.name.empty() ? std::string("adopted") : c.name;
  tun.queues_.push_back(std::make_unique<Queue>(c));
  tun.queues_.back()->fd = fd;
  return tun;
}

Result<LinuxTun, Error<TunError>> LinuxTun::open(const TunConfig& config, TunKernel& kernel) {
  if (config.name.empty() || config.name.size() >= IFNAMSIZ) {
    return fail(err(TunError::bad_config, "name must be 1..15 bytes"));
  }
  if (config.queues == 0 || config.queues > kMaxQueues) {
    return fail(err(TunError::bad_config, "queues must be 1..256"));
  }
  if (config.mtu < 68 || config.mtu > 65535) {
    return fail(err(TunError::bad_config, "mtu must be 68..65535"));
  }
  if (config.read_buffer_bytes < kMinReadBuffer) {
    return fail(err(TunError::bad_config,
                    "read_buffer_bytes must be >= 65545 (10-byte vnet header + 65535), or "
                    "super-packets are silently truncated"));
  }
  if (config.max_batch == 0 || config.max_batch > 65536) {
    return fail(err(TunError::bad_config, "max_batch must be 1..65536"));
  }
  if (config.max_udp_segments < 1 || config.max_udp_segments > kKernelMaxUdpSegments) {
    return fail(err(TunError::bad_config, "max_udp_segments must be 1..128"));
  }

  LinuxTun tun(kernel, config);
  const short base_flags = IFF_TUN | IFF_NO_PI | IFF_MULTI_QUEUE;
  bool vnet = config.offload;
  std::string actual;
  const short first_flags = static_cast<short>(base_flags | kExclusive);
  auto first =
      open_queue(kernel, config.name,
                 vnet ? static_cast<short>(first_flags | IFF_VNET_HDR) : first_flags, actual);
  if (!first) return fail(first.error());
  int fd0 = *first;
  if (vnet) {
    // Step 1: checksum + TSO; every TSO-capable kernel accepts it.
    const int r = kernel.ioctl_val(fd0, TUNSETOFFLOAD, kTsoFlags);
    if (r == 0) {
      tun.caps_.tso = true;
      tun.caps_.offload_flags = kTsoFlags;
      // Step 2: USO4|USO6 together (one alone is EINVAL; kernels < 6.2 refuse both).
      if (config.udp_offload && kernel.ioctl_val(fd0, TUNSETOFFLOAD, kTsoFlags | kUsoFlags) == 0) {
        tun.caps_.uso = true;
        tun.caps_.offload_flags = kTsoFlags | kUsoFlags;
      }
    } else {
      // Offload refused: recreate the device as a plain TUN (the fd is the only queue, so
      // closing it removes the device).
      kernel.close(fd0);
      vnet = false;
      auto plain = open_queue(kernel, config.name, first_flags, actual);
      if (!plain) return fail(plain.error());
      fd0 = *plain;
    }
  }
  tun.caps_.vnet_hdr = vnet;
  tun.name_ = actual;
  const short flags = vnet ? base_flags | IFF_VNET_HDR : base_flags;
  tun.queues_.push_back(std::make_unique<Queue>(config));
  tun.queues_.back()->fd = fd0;
  for (std::size_t i = 1; i < config.queues; ++i) {
    std::string again;
    auto q = open_queue(kernel, actual, flags, again);
    if (!q) return fail(q.error());  // tun's destructor closes the queues opened so far
    tun.queues_.push_back(std::make_unique<Queue>(config));
    tun.queues_.back()->fd = *q;
  }
  tun.caps_.queues = tun.queues_.size();
  for (auto& q : tun.queues_) {
    q->gro_options.tcp = vnet && config.tcp_gro;
    q->gro_options.udp = vnet && tun.caps_.uso && config.udp_gro;
    q->gro_options.max_udp_segments = config.max_udp_segments;
  }
  const std::string line = tun.caps_.describe(tun.name_);
  if (config.log) {
    config.log(line);
  } else {
    std::fprintf(stderr, "%s\n", line.c_str());
  }
  return tun;
}

// ---------------------------------------------------------------------------- read path

Result<std::size_t, TunError> LinuxTun::read_batch(std::size_t qi, PacketBatch& batch) {
  if (qi >= queues_.size()) return fail(TunError::bad_queue);
  Queue& q = *queues_[qi];
  const bool whole = caps_.vnet_hdr && config_.read_mode == ReadMode::keep_whole;
  if (whole ? batch.max_packet() < 65535 : batch.max_packet() < config_.mtu) {
    return fail(TunError::batch_too_small);
  }
  const std::size_t start = batch.size();
  bool stop = false;
  bool io_failed = false;
  while (!batch.full() && !stop) {
    auto r = read_one(q, batch, stop);
    if (!r && r.error() == TunError::io_error) io_failed = true;
  }
  const std::size_t n = batch.size() - start;
  if (n == 0) return fail(io_failed ? TunError::io_error : TunError::would_block);
  return n;
}

// One step of the read loop: either continues the pending super-packet or makes one
// read syscall. Sets `stop` when the loop must end (fd drained, error, batch full).
Result<std::size_t, TunError> LinuxTun::read_one(Queue& q, PacketBatch& batch, bool& stop) {
  if (q.pending) {
    auto r = gso_split({q.buf.get(), q.pending_len}, q.pending_meta, batch, q.pending_cursor);
    if (!r) {
      q.counters.drops.count(r.error());
      q.pending = false;
      return std::size_t{0};
    }
    q.counters.read_packets += r->emitted;
    if (r->done) q.pending = false;
    return r->emitted;
  }

  MutableByteSpan slot = batch.next_slot();
  struct iovec iov[3];
  int iovcnt = 0;
  const bool vnet = caps_.vnet_hdr;
  const bool whole = vnet && config_.read_mode == ReadMode::keep_whole;
  std::size_t direct = 0;
  if (vnet) iov[iovcnt++] = {q.hdr, kVnetHdrLen};
  if (!vnet) {
    direct = slot.size();
    iov[iovcnt++] = {slot.data(), direct};
  } else if (whole) {
    direct = std::min(slot.size(), q.read_cap);
    iov[iovcnt++] = {slot.data(), direct};
  } else {
    // Small packets land straight in the slot; a longer one spills into the private
    // buffer at the same offset, so one memcpy makes it contiguous there.
    direct = std::min(slot.size(), q.read_cap);
    iov[iovcnt++] = {slot.data(), direct};
    if (q.read_cap > direct) iov[iovcnt++] = {q.buf.get() + direct, q.read_cap - direct};
  }
  ssize_t n;
  do {
    n = kernel_->readv(q.fd, iov, iovcnt);
  } while (n == -EINTR);
  if (n < 0) {
    stop = true;
    if (n == -EAGAIN || n == -EWOULDBLOCK) return fail(TunError::would_block);
    return fail(TunError::io_error);
  }
  ++q.counters.read_syscalls;
  if (!vnet) {
    batch.commit(static_cast<std::size_t>(n));
    ++q.counters.read_packets;
    return std::size_t{1};
  }
  if (static_cast<std::size_t>(n) < kVnetHdrLen) {
    q.counters.drops.count(OffloadError::short_header);
    return std::size_t{0};
  }
  const std::size_t len = static_cast<std::size_t>(n) - kVnetHdrLen;
  const VnetHdr hdr = *decode_vnet_hdr({q.hdr, kVnetHdrLen});
  const bool in_slot = len <= direct;
  if (!in_slot) std::memcpy(q.buf.get(), slot.data(), direct);  // make it contiguous
  std::uint8_t* data = in_slot ? slot.data() : q.buf.get();
  auto m = validate_offload(hdr, {data, len}, OffloadLimits{whole ? 0 : config_.mtu, 0});
  if (!m) {
    q.counters.drops.count(m.error());
    return std::size_t{0};
  }
  if (m->type == GsoType::none) {
    if (!in_slot) {  // a plain packet longer than the batch's slots
      q.counters.drops.count(OffloadError::output_too_small);
      return std::size_t{0};
    }
    if (m->needs_csum) finish_partial_checksum({data, len}, *m);  // bounds validated
    batch.commit(len);
    ++q.counters.read_packets;
    return std::size_t{1};
  }
  ++q.counters.read_superpackets;
  if (whole) {
    const std::size_t segs = segment_count(*m, len);
    batch.commit(len, *m, static_cast<std::uint32_t>(segs));
    q.counters.read_packets += segs;
    return std::size_t{1};
  }
  if (in_slot) std::memcpy(q.buf.get(), data, len);  // the split writes into this slot
  q.pending = true;
  q.pending_len = len;
  q.pending_meta = *m;
  q.pending_cursor = {};
  return std::size_t{0};  // the loop's next step splits it
}

// --------------------------------------------------------------------------- write path

bool LinuxTun::needs_software_split(const GsoMetadata& m, std::size_t len) const {
  if (m.type == GsoType::none) return false;
  if (!caps_.vnet_hdr) return true;
  return is_udp(m.type) && (!caps_.uso || segment_count(m, len) > kKernelMaxUdpSegments);
}

bool LinuxTun::write_packet(Queue& q, ByteSpan packet, const VnetHdr& hdr, WriteReport& report,
                            bool& would_block) {
  std::uint8_t h[kVnetHdrLen];
  struct iovec iov[2];
  int iovcnt = 0;
  std::size_t total = packet.size();
  if (caps_.vnet_hdr) {
    encode_vnet_hdr(hdr, h);  // every byte written: no stale headroom reaches the kernel
    iov[iovcnt++] = {h, kVnetHdrLen};
    total += kVnetHdrLen;
  }
  iov[iovcnt++] = {const_cast<std::uint8_t*>(packet.data()), packet.size()};
  ssize_t n;
  do {
    n = kernel_->writev(q.fd, iov, iovcnt);
  } while (n == -EINTR);
  ++report.syscalls;
  ++q.counters.write_syscalls;
  if (n == -EAGAIN || n == -EWOULDBLOCK) {
    would_block = true;
    return false;
  }
  if (n < 0 || static_cast<std::size_t>(n) != total) {
    report.last_errno = n < 0 ? static_cast<int>(-n) : EIO;
    ++q.counters.write_errors;
    return false;
  }
  return true;
}

Result<WriteReport, TunError> LinuxTun::write_batch(std::size_t qi, PacketBatch& batch) {
  if (qi >= queues_.size()) return fail(TunError::bad_queue);
  Queue& q = *queues_[qi];
  if (batch.size() > config_.max_batch) return fail(TunError::batch_too_large);
  WriteReport report;
  if (!batch.coalesced()) {
    // New batch content: an interrupted software split of an abandoned batch is void.
    q.sw_active = false;
    if (batch.cursor() == 0 && (q.gro_options.tcp || q.gro_options.udp)) {
      const GroStats s = gro_coalesce(batch, q.gro_options, q.gro);
      q.counters.gro_merged += s.merged;
      q.counters.gro_bad_checksum += s.bad_checksum;
    }
    batch.set_coalesced(true);
  }
  for (std::size_t i = batch.cursor(); i < batch.size(); batch.set_cursor(++i)) {
    const std::uint32_t logical = batch.logical(i);
    if (logical == 0) continue;  // merged into an earlier packet
    MutableByteSpan p = batch.packet(i);
    GsoMetadata m = batch.meta(i);
    if (!m.is_plain()) {
      // Metadata may come from a peer: the same gate as the read side.
      auto v = revalidate(m, p);
      if (!v) {
        q.counters.drops.count(v.error());
        report.logical_dropped += logical;
        continue;
      }
      m = *v;
    }
    bool would_block = false;
    if (needs_software_split(m, p.size())) {
      if (!q.sw_active || q.sw_index != i) q.sw_cursor = {};
      bool done = false;
      while (!done) {
        q.scratch.clear();
        const std::size_t chunk_start = q.sw_cursor.next_segment;
        auto r = gso_split(p, m, q.scratch, q.sw_cursor);
        if (!r) {
          q.counters.drops.count(r.error());
          report.logical_dropped += segment_count(m, p.size()) - chunk_start;
          break;
        }
        done = r->done;
        for (std::size_t j = 0; j < q.scratch.size(); ++j) {
          if (write_packet(q, q.scratch.packet(j), VnetHdr{}, report, would_block)) {
            ++report.logical_written;
            ++q.counters.write_packets;
          } else if (would_block) {
            q.sw_active = true;
            q.sw_index = i;
            q.sw_cursor.next_segment = chunk_start + j;
            report.would_block = true;
            return report;
          } else {
            ++report.logical_dropped;
          }
        }
      }
      q.sw_active = false;
      continue;
    }
    if (!caps_.vnet_hdr && m.needs_csum) {
      finish_partial_checksum(p, m);  // bounds validated above
      m = {};
    }
    if (write_packet(q, p, to_vnet_hdr(m), report, would_block)) {
      report.logical_written += logical;
      q.counters.write_packets += logical;
    } else if (would_block) {
      report.would_block = true;
      return report;
    } else {
      report.logical_dropped += logical;
    }
  }
  return report;
}

}  // namespace qeli::tunio
