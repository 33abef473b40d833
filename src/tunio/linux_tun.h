// LinuxTun: a TUN device with N queues, virtio_net_hdr offloads and batched, non-blocking
// reads and writes, for an event loop to drive (reference/tun-offload.md §1, §2.1-2.5).
//
// Set-up (open):
//   1. each queue: open("/dev/net/tun", O_RDWR|O_NONBLOCK|O_CLOEXEC) and TUNSETIFF with
//      IFF_TUN|IFF_NO_PI|IFF_VNET_HDR|IFF_MULTI_QUEUE (identical flags on every queue);
//   2. on the first queue: TUNSETOFFLOAD(CSUM|TSO4|TSO6), then, if it succeeded and UDP is
//      wanted, TUNSETOFFLOAD(CSUM|TSO4|TSO6|USO4|USO6) (kernels without USO refuse the
//      whole call, so the first step stands alone);
//   3. if step 2's first call fails, the device is recreated without IFF_VNET_HDR: a
//      plain TUN, one packet per syscall, no metadata;
//   4. the capabilities are logged once.
// Link state, MTU and addresses are set through netlink (sys/link_netlink.h), never by
// writing to the fd.
//
// Read (read_batch): packets are appended to the caller's batch until it is full or the
// fd would block. ReadMode::keep_whole leaves each super-packet whole with its validated
// metadata (for carriers that move it in one piece; batch slots must hold 65535 bytes);
// ReadMode::split cuts it into MTU-sized packets (gso_split), and a super-packet that
// does not fit the remaining slots is carried over to the next call. Partial checksums
// are completed. Invalid metadata is a counted drop.
//
// Write (write_batch): GRO coalesce (once per batch content), then one
// writev([vnet_hdr, packet]) per resulting packet; every header byte written is
// initialised from the packet's metadata. Packets whose metadata the device cannot take
// are split in software. Progress is kept in the batch's cursor: after would_block the
// same batch can be passed again and nothing is written twice; the report counts LOGICAL
// packets (before coalescing). A packet the kernel rejects (EINVAL, EIO) is dropped and
// counted and the rest of the batch still goes out.
//
// Ownership: the caller owns the batches; LinuxTun never keeps a reference to one between
// calls. Threading: queue q may be used by one thread at a time; different queues may be
// used concurrently. fd(q) is owned by LinuxTun (closed by its destructor).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "tunio/offload_coalesce.h"
#include "tunio/offload_error.h"
#include "tunio/offload_split.h"
#include "tunio/packet_batch.h"
#include "tunio/tun_kernel.h"
#include "tunio/vnet_hdr.h"

namespace qeli::tunio {

// TUN offload flags (include/uapi/linux/if_tun.h), used with TUNSETOFFLOAD.
inline constexpr unsigned kTunFCsum = 0x01;
inline constexpr unsigned kTunFTso4 = 0x02;
inline constexpr unsigned kTunFTso6 = 0x04;
inline constexpr unsigned kTunFUso4 = 0x20;
inline constexpr unsigned kTunFUso6 = 0x40;

/// A read needs the header plus the largest IP packet; a shorter buffer would silently
/// truncate super-packets (reference §0 item 2).
inline constexpr std::size_t kMinReadBuffer = kVnetHdrLen + 65535;

enum class ReadMode : std::uint8_t { keep_whole, split };

struct TunConfig {
  /// Interface name, at most 15 bytes; "%d" lets the kernel pick a number.
  std::string name = "qeli%d";
  std::size_t queues = 1;
  /// Try IFF_VNET_HDR with TSO; false forces a plain TUN.
  bool offload = true;
  /// Also try USO (UDP segmentation offload, kernel >= 6.2).
  bool udp_offload = true;
  ReadMode read_mode = ReadMode::split;
  /// Largest packet a split may produce (the TUN's MTU); 576..65535.
  std::size_t mtu = 1500;
  /// Write-side coalescing. UDP GRO is used only if USO was negotiated.
  bool tcp_gro = true;
  bool udp_gro = true;
  std::size_t max_udp_segments = 64;
  /// Largest batch passed to read_batch/write_batch (sizes the GRO table).
  std::size_t max_batch = 128;
  /// Private read buffer per queue; must be >= kMinReadBuffer.
  std::size_t read_buffer_bytes = kMinReadBuffer;
  /// Receives the one capabilities line at open; null = stderr.
  std::function<void(std::string_view)> log;
};

struct TunCapabilities {
  bool vnet_hdr = false;
  bool tso = false;
  bool uso = false;
  unsigned offload_flags = 0;
  std::size_t queues = 0;
  std::string describe(std::string_view name) const;
};

enum class TunError : std::uint8_t {
  would_block,      // nothing to read right now (not a failure)
  bad_config,       // a TunConfig value out of range (detail says which)
  open_failed,      // open(/dev/net/tun) failed
  setiff_failed,    // TUNSETIFF refused
  bad_queue,        // queue index out of range
  batch_too_small,  // keep_whole needs 65535-byte slots; split needs mtu-sized slots
  batch_too_large,  // more packets than max_batch
  io_error,         // read failed with something other than EAGAIN/EINTR
};
std::string_view to_string(TunError e);

struct WriteReport {
  std::size_t logical_written = 0;  // IP packets handed to the kernel
  std::size_t logical_dropped = 0;  // IP packets dropped (kernel rejection, bad metadata)
  std::size_t syscalls = 0;
  bool would_block = false;  // stopped early; pass the same batch again later
  int last_errno = 0;        // last kernel rejection, 0 if none
  bool complete() const { return !would_block; }
};

struct TunQueueCounters {
  std::uint64_t read_syscalls = 0;
  std::uint64_t read_packets = 0;       // logical packets delivered to batches
  std::uint64_t read_superpackets = 0;  // GSO reads
  std::uint64_t write_syscalls = 0;
  std::uint64_t write_packets = 0;  // logical packets written
  std::uint64_t write_errors = 0;   // writes the kernel rejected
  std::uint64_t gro_merged = 0;
  std::uint64_t gro_bad_checksum = 0;
  OffloadCounters drops;  // invalid metadata, by reason
};

/// Why a TUN named `name` cannot be ours: a link of that name exists (another qeli, another
/// program, a persistent device left behind).
std::string tun_name_taken(const std::string& name);

class LinuxTun {
 public:
  /// Opens the device (see the header comment). `kernel` must outlive the LinuxTun.
  static Result<LinuxTun, Error<TunError>> open(const TunConfig& config,
                                                TunKernel& kernel = linux_tun_kernel());
  /// Takes over an fd of a TUN device someone else created (what a phone's VPN service
  /// hands over, or a TUN opened by a privileged helper): one queue, no virtio_net_hdr
  /// (such fds are plain TUNs), so super-packets are split in software on write and
  /// reads are MTU-sized. The fd is made non-blocking and closed by the LinuxTun.
  /// config.name only names it in logs; queues/offload are ignored.
  static Result<LinuxTun, Error<TunError>> adopt(int fd, const TunConfig& config,
                                                 TunKernel& kernel = linux_tun_kernel());
  LinuxTun(LinuxTun&&) noexcept;
  LinuxTun& operator=(LinuxTun&&) noexcept;
  ~LinuxTun();

  const std::string& name() const { return name_; }
  std::size_t queue_count() const { return queues_.size(); }
  /// The non-blocking fd of queue q, for epoll. -1 if q is out of range.
  int fd(std::size_t q) const;
  const TunCapabilities& capabilities() const { return caps_; }
  /// Counters of queue q (precondition: q < queue_count()).
  const TunQueueCounters& counters(std::size_t q) const;

  /// Appends packets read from queue q to `batch`. Returns how many packets were appended
  /// (>= 1), or would_block if none could be read, or io_error / batch_too_small.
  Result<std::size_t, TunError> read_batch(std::size_t q, PacketBatch& batch);

  /// Writes batch[batch.cursor() ..] to queue q (see the header comment).
  Result<WriteReport, TunError> write_batch(std::size_t q, PacketBatch& batch);

 private:
  struct Queue;
  LinuxTun(TunKernel& kernel, TunConfig config);
  void close_all();
  Result<std::size_t, TunError> read_one(Queue& q, PacketBatch& batch, bool& stop);
  bool write_packet(Queue& q, ByteSpan packet, const VnetHdr& hdr, WriteReport& report,
                    bool& would_block);
  bool needs_software_split(const GsoMetadata& m, std::size_t len) const;

  TunKernel* kernel_;
  TunConfig config_;
  std::string name_;
  TunCapabilities caps_;
  std::vector<std::unique_ptr<Queue>> queues_;
};

}  // namespace qeli::tunio
