// UdpSocket: a non-blocking UDP socket with batched, offloaded I/O for the UDP carriers
// (reference qeli-0.7.16.md §3.9; reference/tun-offload.md §3).
//
// Set-up (open):
//   1. socket(AF_INET|AF_INET6, SOCK_DGRAM|SOCK_NONBLOCK|SOCK_CLOEXEC); SO_REUSEPORT when
//      asked (the server binds one socket per worker to the same port and the kernel's
//      flow hash pins each client to one of them); bind;
//   2. buffers: explicit sizes are set as given (<= 64 MiB); "auto" starts at 4 MiB and
//      the receive buffer grows to 8, then 16 MiB when the socket's drop counter moves
//      (SO_RXQ_OVFL cmsgs where the kernel sends them, else SO_MEMINFO samples). Each
//      size is tried with SO_{RCV,SND}BUFFORCE first (root ignores rmem_max) and then the
//      plain option; the value the kernel keeps is read back;
//   3. offload probes: TX offload if getsockopt(UDP_SEGMENT) works, RX offload if
//      setsockopt(UDP_GRO, 1) works (kernel >= 5.12); the result is logged once.
//
// Send (send): datagrams are planned into messages (udp_gso.h) and handed to sendmmsg;
// a GSO message is one iovec per datagram (no copy). EAGAIN stops the call: `sent` says
// how many leading datagrams went out and the caller passes the rest again later. If a
// GSO message fails with EIO or EINVAL (egress device without checksum offload on kernels
// before 6.11; a kernel that refuses the segment count) TX offload is switched off for
// good, logged once, counted, and the same datagrams are resent one per message, in
// order. A GSO message refused with EMSGSIZE is resent uncoalesced; a single datagram
// refused with EMSGSIZE (bigger than the path MTU with DF set) is dropped and reported
// as a value (emsgsize), as are other per-message errors (the rest of the batch still
// goes out).
//
// Receive (recv): without RX offload recvmmsg fills every slot; with it, only the last
// kGroRecvSlots slots (each of >= kGroReadSize bytes) and split_gro() spreads the
// coalesced reads over the slots from the front. Truncated reads are dropped, counted.
//
// Ownership: the caller owns every datagram and slot buffer; UdpSocket keeps no pointer
// into them after a call returns. Threading: one thread at a time calls send() and one
// thread at a time calls recv() (they may be two different threads: the arrays and
// counters of each direction are separate); counters() is for those threads only, while
// rx_stats() (kernel drops, buffer grows, the receive buffer's size) is for any thread.
#pragma once

#include <sys/socket.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "base/result.h"
#include "transport/sock_addr.h"
#include "transport/udp_gso.h"
#include "transport/udp_kernel.h"
#include "transport/udp_rx_stats.h"

namespace qeli::transport {

/// Socket buffer sizes (bytes).
inline constexpr std::size_t kUdpAutoBuffer = 4u << 20;      // auto: start
inline constexpr std::size_t kUdpAutoBufferMax = 16u << 20;  // auto: grow up to
inline constexpr std::size_t kUdpMaxBuffer = 64u << 20;      // explicit values: at most

/// IP_MTU_DISCOVER / IPV6_MTU_DISCOVER policy.
enum class PmtuMode : std::uint8_t {
  kDont,   ///< DF clear: the kernel may fragment (IP_PMTUDISC_DONT)
  kWant,   ///< the kernel default (IP_PMTUDISC_WANT)
  kDo,     ///< DF set; sends larger than the known path MTU fail with EMSGSIZE
  kProbe,  ///< DF set, the known path MTU ignored: for path-MTU probes (IP_PMTUDISC_PROBE)
};

struct UdpOptions {
  SockAddr bind;  ///< local address (port 0 = any); its family selects the socket's
  bool reuse_port = false;
  std::size_t recv_buffer = 0;  ///< bytes; 0 = auto
  std::size_t send_buffer = 0;  ///< bytes; 0 = auto (kUdpAutoBuffer)
  bool tx_offload = true;       ///< try UDP_SEGMENT
  /// Learn each datagram's destination address (IP_PKTINFO / IPV6_RECVPKTINFO,
  /// RecvSlot::from's local_v4 / local_v6) and send replies from it. For servers bound to
  /// the wildcard address.
  bool pktinfo = false;
  bool rx_offload = true;  ///< try UDP_GRO
  /// Most messages per sendmmsg / recvmmsg (sizes the socket's private arrays).
  std::size_t max_batch = 128;
  GsoLimits gso;
  /// Sees the socket after socket() and before bind() (a phone's VPN service exempts it
  /// from the tunnel there); false fails open() with kSocket.
  std::function<bool(int fd)> protect;
  /// Receives the capabilities line at open and the one-off fallback lines; null = stderr.
  std::function<void(std::string_view)> log;
};

struct UdpCapabilities {
  bool tx_gso = false;  ///< UDP_SEGMENT in use (may be switched off later by a fallback)
  bool rx_gro = false;  ///< UDP_GRO in use
  bool rxq_ovfl = false;
  bool pktinfo = false;         ///< IP_PKTINFO (IPV6_RECVPKTINFO) in use
  std::size_t recv_buffer = 0;  ///< bytes the kernel reports (it doubles what was asked)
  std::size_t send_buffer = 0;
  std::string describe() const;
};

enum class UdpError : std::uint8_t {
  kWouldBlock,     ///< nothing to read right now (not a failure)
  kBadConfig,      ///< an option out of range (detail says which)
  kSocket,         ///< socket/bind failed
  kSlotsTooSmall,  ///< recv: fewer than kGroRecvSlots slots, or tail slots < kGroReadSize
  kIo,             ///< recvmmsg failed with something other than EAGAIN/EINTR
};
std::string_view to_string(UdpError e);

struct UdpSendReport {
  std::size_t sent = 0;      ///< leading datagrams handled (sent or dropped)
  std::size_t dropped = 0;   ///< of those, refused by the kernel (emsgsize + errors)
  std::size_t emsgsize = 0;  ///< dropped with EMSGSIZE (bigger than the path MTU / limit)
  std::size_t syscalls = 0;
  bool would_block = false;   ///< stopped on EAGAIN: pass datagrams [sent, n) again
  bool gso_disabled = false;  ///< this call switched TX offload off (EIO/EINVAL)
  int last_errno = 0;         ///< last errno of a dropped message, 0 if none
};

struct UdpCounters {
  std::uint64_t send_syscalls = 0;
  std::uint64_t send_messages = 0;
  std::uint64_t send_gso_messages = 0;
  std::uint64_t send_datagrams = 0;
  std::uint64_t drop_emsgsize = 0;
  std::uint64_t drop_send_error = 0;
  std::uint64_t gso_fallbacks = 0;  ///< TX offload switched off (at most 1)
  std::uint64_t recv_syscalls = 0;
  std::uint64_t recv_datagrams = 0;  ///< after GRO split
  std::uint64_t recv_gro_reads = 0;  ///< reads that carried more than one datagram
  std::uint64_t drop_truncated = 0;
  std::uint64_t drop_split = 0;  ///< datagrams lost to a split error
  // The kernel's drops at the receive queue and the buffer's grows are in rx_stats().
};

class UdpSocket {
 public:
  static Result<UdpSocket, Error<UdpError>> open(const UdpOptions& options,
                                                 UdpKernel& kernel = linux_udp_kernel());
  UdpSocket(UdpSocket&&) noexcept;
  UdpSocket& operator=(UdpSocket&&) noexcept;
  ~UdpSocket();

  int fd() const { return fd_; }
  SockAddr local_address() const;
  const UdpCapabilities& capabilities() const { return caps_; }
  const UdpCounters& counters() const { return counters_; }
  /// Any thread, while the socket lives; its address stays the same when the socket is
  /// moved (a reader may keep a pointer to it).
  const UdpRxStats& rx_stats() const { return *rx_stats_; }
  std::size_t max_batch() const { return max_batch_; }

  /// Sends `datagrams` in order (see the header comment). Never blocks.
  UdpSendReport send(std::span<const OutDatagram> datagrams);

  /// Receives into `slots` (see the header comment): returns n datagrams in slots [0, n)
  /// (n == 0: everything read was dropped, e.g. truncated; call again), or kWouldBlock,
  /// kSlotsTooSmall, kIo. Uses at most max_batch() slots. With RX offload the last
  /// kGroRecvSlots of those slots must hold kGroReadSize bytes each.
  Result<std::size_t, UdpError> recv(std::span<RecvSlot> slots);

  /// Sets the DF/path-MTU policy for later sends. False if the kernel refused.
  bool set_pmtu_mode(PmtuMode mode);
  /// Tells the socket to stop using UDP_SEGMENT (e.g. an operator knob for kernels with
  /// known GSO bugs). One-way.
  void disable_tx_offload();

 private:
  struct Arrays;
  UdpSocket(UdpKernel& kernel, UdpOptions options);
  void log(std::string_view line) const;
  void set_buffer(int opt, int force_opt, std::size_t bytes);
  void note_rx_drops(std::uint32_t cumulative);
  void sample_drops();
  void disable_gso_after_error(int err);

  UdpKernel* kernel_;
  UdpOptions options_;
  int fd_ = -1;
  std::size_t max_batch_ = 0;
  UdpCapabilities caps_;
  UdpCounters counters_;
  std::uint32_t last_ovfl_ = 0;
  std::size_t rcv_asked_ = 0;  ///< receive buffer bytes last asked for
  std::unique_ptr<Arrays> a_;
  std::unique_ptr<UdpRxStats> rx_stats_ = std::make_unique<UdpRxStats>();
};

}  // namespace qeli::transport
