// UdpRxStats: a UDP socket's receive-side figures for threads other than its receiver — an
// app's stats call (libqeli's qeli_client_stats), a status report — read without a lock
// and without a syscall. The socket's receive thread writes them only when they change
// (the kernel dropped datagrams, the receive buffer was set or grown), never per
// datagram, so the data path pays nothing for them in the steady state.
//
// Threading: one writer (the socket's receive thread, or its opener), any readers; relaxed
// atomics (figures, not synchronisation: a reader may see a drop before the grow it caused).
#pragma once

#include <atomic>
#include <cstdint>

namespace qeli::transport {

/// UdpRxStats read at one moment: plain numbers for a report.
struct UdpRxFigures {
  std::uint64_t kernel_drops = 0;
  std::uint64_t buffer_grows = 0;
  std::uint64_t recv_buffer_bytes = 0;
};

struct UdpRxStats {
  /// Datagrams the kernel dropped at the socket's receive queue (it was full), since open.
  std::atomic<std::uint64_t> kernel_drops{0};
  /// Times the automatic receive buffer was grown after such drops (at most two: 4 → 8 →
  /// 16 MiB asked); explicit sizes never grow.
  std::atomic<std::uint64_t> buffer_grows{0};
  /// SO_RCVBUF as the kernel reports it now (it doubles what was asked, and caps what an
  /// unprivileged socket may ask at net.core.rmem_max): what the socket really has.
  std::atomic<std::uint64_t> recv_buffer_bytes{0};

  /// Three relaxed loads: never waits for the receive thread, nor makes it wait.
  UdpRxFigures read() const {
    return {kernel_drops.load(std::memory_order_relaxed),
            buffer_grows.load(std::memory_order_relaxed),
            recv_buffer_bytes.load(std::memory_order_relaxed)};
  }
};

}  // namespace qeli::transport
