// The exported C functions of libqeli (include/qeli_transport_core.h): argument checks,
// the handle registry and the guard that keeps every exception on this side. Behaviour
// lives in FfiClient; this file only translates.
#include <cstring>
#include <exception>
#include <new>
#include <string>

#include "ffi/ffi_client.h"
#include "ffi/handle_registry.h"
// The ABI names a struct and a function qeli_client_stats (C keeps them apart; C++ warns).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wshadow"
#include "qeli_transport_core.h"
#pragma GCC diagnostic pop

namespace qeli::ffi {
namespace {

// A process rarely needs more than a handful of handles; the bound keeps a leaking app
// from growing the registry without end.
constexpr std::size_t kMaxHandles = 1024;

HandleRegistry<FfiClient>& registry() {
  static auto* r = new HandleRegistry<FfiClient>(kMaxHandles);  // never destroyed: a
  return *r;  // run may still hold a lease while the process exits
}

constexpr std::uint64_t kCoreCapabilities =
    QELI_CORE_STRICT_CONFIG | QELI_CORE_LIFECYCLE_EVENTS | QELI_CORE_NETWORK_PLAN_ACK |
    QELI_CORE_TUN_FD_OWNERSHIP | QELI_CORE_SOCKET_PROTECT_ACK | QELI_CORE_DEVICE_ID_INPUT |
    QELI_CORE_SERVER_IDENTITY_ACK | QELI_CORE_HANDSHAKE_NETWORK_INPUT |
    QELI_CORE_NATIVE_DATA_PLANE | QELI_CORE_TUN_PACKET_IO | QELI_CORE_UDP_DIAGNOSTIC |
    QELI_CORE_X_IPV6_INSIDE;

template <class F>
std::int32_t guarded(F&& f) noexcept {
  try {
    return f();
  } catch (const std::bad_alloc&) {
    return rc::kPanic;
  } catch (...) {
    return rc::kPanic;
  }
}

template <class F>
std::int32_t with_client(std::uint64_t handle, F&& f) noexcept {
  return guarded([&] {
    auto c = registry().get(handle);
    if (!c) return rc::kInvalidHandle;
    return f(*c);
  });
}

// `p`/`n` as text: NULL with n > 0 or n over `max` is an error.
bool text_arg(const std::uint8_t* p, std::size_t n, std::size_t max, std::string& out) {
  if ((p == nullptr && n != 0) || n > max) return false;
  out.assign(reinterpret_cast<const char*>(p), n);
  return true;
}

// The app's answer to a request (`id`: a plan generation or an event sequence): 0 yes,
// anything else no, with an optional reason of any length — valid UTF-8, else
// INVALID_ARGUMENT before anything else is looked at (0.7.16).
using Answer = std::int32_t (FfiClient::*)(std::uint64_t, bool, std::string_view);
std::int32_t answer(std::uint64_t handle, std::uint64_t id, std::int32_t result_code,
                    const std::uint8_t* reason, std::size_t reason_len, Answer what) noexcept {
  return guarded([&] {
    if (reason == nullptr && reason_len != 0) return rc::kInvalidArgument;
    const std::string_view why(reinterpret_cast<const char*>(reason), reason_len);
    if (!is_utf8(why)) return rc::kInvalidArgument;
    auto c = registry().get(handle);
    if (!c) return rc::kInvalidHandle;
    return ((*c).*what)(id, result_code == 0, why);
  });
}

void write_event(qeli_client_event_t* out, const Event& e, std::uint32_t caller_size) {
  qeli_client_event_t v{};
  v.struct_size = caller_size;
  v.abi_version = QELI_CLIENT_ABI_VERSION;
  v.kind = static_cast<std::uint32_t>(e.kind);
  v.state = e.state;
  v.payload_format = static_cast<std::uint32_t>(e.format);
  v.sequence = e.sequence;
  v.plan_generation = e.plan_generation;
  v.error_code = e.error_code;
  v.payload_len = static_cast<std::uint32_t>(e.payload.size());
  // Never past what the caller said it has (a newer header may have a larger struct; an
  // older one exactly V1).
  std::memcpy(out, &v, std::min<std::size_t>(caller_size, sizeof v));
}

}  // namespace
}  // namespace qeli::ffi

using namespace qeli::ffi;  // NOLINT: this file is the C boundary of that namespace

#define QELI_EXPORT extern "C" __attribute__((visibility("default")))

QELI_EXPORT uint32_t qeli_client_abi_version(void) { return QELI_CLIENT_ABI_VERSION; }

QELI_EXPORT uint64_t qeli_client_core_capabilities(void) { return kCoreCapabilities; }

QELI_EXPORT int32_t qeli_client_udp_probe(const uint8_t* config, size_t config_len,
                                          uint32_t timeout_ms, uint64_t* out_latency_ms) {
  return guarded([&] {
    // As 0.7.16: the arguments (INVALID_ARGUMENT), then the text (INVALID_CONFIG).
    if (out_latency_ms == nullptr || config == nullptr || config_len == 0 ||
        config_len > kMaxConfigBytes || timeout_ms < kMinProbeTimeoutMs ||
        timeout_ms > kMaxProbeTimeoutMs) {
      return rc::kInvalidArgument;
    }
    *out_latency_ms = 0;
    const std::string text(reinterpret_cast<const char*>(config), config_len);
    if (!qeli::is_utf8(text)) return rc::kInvalidConfig;
    std::uint64_t latency = 0;
    const std::int32_t r = udp_probe(text, timeout_ms, latency);
    *out_latency_ms = latency;
    return r;
  });
}

QELI_EXPORT int32_t qeli_client_new(const uint8_t* config, size_t config_len,
                                    uint64_t platform_capabilities, uint32_t event_capacity,
                                    uint64_t* out_handle) {
  return guarded([&] {
    // As 0.7.16: NULL pointers (INVALID_ARGUMENT); a profile that is not UTF-8, over
    // 256 KiB or empty (INVALID_CONFIG); the queue's capacity (INVALID_ARGUMENT).
    if (out_handle == nullptr || (config == nullptr && config_len != 0)) {
      return rc::kInvalidArgument;
    }
    *out_handle = 0;
    const std::string_view text(reinterpret_cast<const char*>(config), config_len);
    if (!qeli::is_utf8(text) || config_len > kMaxConfigBytes) return rc::kInvalidConfig;
    if (event_capacity == 0) event_capacity = kDefaultEventCapacity;
    if (event_capacity < kMinEventCapacity || event_capacity > kMaxEventCapacity) {
      return rc::kInvalidArgument;
    }
    if ((platform_capabilities & platform::kTunWintun) != 0) return rc::kUnsupported;
    if (text.find('\0') != std::string::npos) return rc::kInvalidConfig;
    auto profile = load_profile(text);  // empty text: no [qeli] section
    if (!profile.ok()) return rc::kInvalidConfig;
    auto client =
        std::make_shared<FfiClient>(std::move(*profile), platform_capabilities, event_capacity);
    const std::uint64_t h = registry().add(std::move(client));
    if (h == 0) return rc::kInvalidState;
    *out_handle = h;
    return rc::kOk;
  });
}

QELI_EXPORT int32_t qeli_client_start(uint64_t handle) {
  return with_client(handle, [](FfiClient& c) { return c.start(); });
}

QELI_EXPORT int32_t qeli_client_run(uint64_t handle, const uint8_t* input, size_t input_len) {
  return guarded([&] {
    // The input's shape first (INVALID_ARGUMENT), then the handle, as 0.7.16.
    std::string text;
    if (!text_arg(input, input_len, kMaxRunInputBytes, text)) return rc::kInvalidArgument;
    auto in = parse_run_input(text);
    if (!in.ok()) return rc::kInvalidArgument;
    auto c = registry().get(handle);  // the lease: a free meanwhile stops, never frees, it
    if (!c) return rc::kInvalidHandle;
    return c->run(*in);
  });
}

QELI_EXPORT int32_t qeli_client_tun_push(uint64_t handle, uint64_t generation,
                                         const uint8_t* packets, size_t packets_len,
                                         const uint32_t* lengths, size_t packet_count,
                                         size_t* out_accepted) {
  if (out_accepted == nullptr || packet_count == 0 || packet_count > kMaxBatchPackets ||
      lengths == nullptr || packets == nullptr) {
    return rc::kInvalidArgument;
  }
  *out_accepted = 0;
  return with_client(handle, [&](FfiClient& c) {
    std::shared_ptr<PacketPipe> pipe;
    if (auto r = c.pipe_for(generation, pipe); r != rc::kOk) return r;
    // 0.7.16: any IP packet size (1..65535); one over the MTU is dropped by the pipe.
    std::size_t sum = 0;
    for (std::size_t i = 0; i < packet_count; ++i) {
      if (lengths[i] == 0 || lengths[i] > kMaxPacketBytes) return rc::kInvalidArgument;
      sum += lengths[i];
    }
    if (sum != packets_len) return rc::kInvalidArgument;
    *out_accepted = pipe->push(packets, lengths, packet_count);
    return *out_accepted == packet_count ? rc::kOk : rc::kNoEvent;
  });
}

QELI_EXPORT int32_t qeli_client_tun_pull(uint64_t handle, uint64_t generation, uint8_t* packets,
                                         size_t packets_capacity, uint32_t* lengths,
                                         size_t length_capacity, size_t* out_packet_count,
                                         size_t* out_bytes) {
  if (out_packet_count == nullptr || out_bytes == nullptr || packets == nullptr ||
      lengths == nullptr || packets_capacity == 0 || length_capacity == 0) {
    return rc::kInvalidArgument;
  }
  *out_packet_count = 0;
  *out_bytes = 0;
  return with_client(handle, [&](FfiClient& c) {
    std::shared_ptr<PacketPipe> pipe;
    if (auto r = c.pipe_for(generation, pipe); r != rc::kOk) return r;
    const PullResult r =
        pipe->pull(packets, packets_capacity, lengths, std::min(length_capacity, kMaxBatchPackets));
    if (r.packets == 0 && r.first_size > 0) {
      *out_bytes = r.first_size;
      return rc::kBufferTooSmall;
    }
    *out_packet_count = r.packets;
    *out_bytes = r.bytes;
    return r.packets > 0 ? rc::kOk : rc::kNoEvent;
  });
}

QELI_EXPORT int32_t qeli_client_stop(uint64_t handle) {
  return with_client(handle, [](FfiClient& c) { return c.stop(); });
}

QELI_EXPORT int32_t qeli_client_set_device_id(uint64_t handle, const uint8_t* device_id,
                                              size_t device_id_len) {
  // As 0.7.16: NULL with a length, then the handle, then the state, then the id.
  if (device_id == nullptr && device_id_len != 0) return rc::kInvalidArgument;
  return with_client(handle,
                     [&](FfiClient& c) { return c.set_device_id(device_id, device_id_len); });
}

QELI_EXPORT int32_t qeli_client_publish_handshake_network(uint64_t handle, const uint8_t* input,
                                                          size_t input_len,
                                                          uint64_t* out_generation) {
  if (out_generation == nullptr || (input == nullptr && input_len != 0)) {
    return rc::kInvalidArgument;
  }
  *out_generation = 0;
  const std::string_view text(reinterpret_cast<const char*>(input), input_len);
  if (!qeli::is_utf8(text)) return rc::kInvalidArgument;
  return with_client(handle, [&](FfiClient& c) {
    std::uint64_t generation = 0;
    const std::int32_t r = c.publish_handshake_network(text, generation);
    *out_generation = generation;
    return r;
  });
}

QELI_EXPORT int32_t qeli_client_set_tun_fd(uint64_t handle, uint64_t generation, int32_t fd) {
  return with_client(handle, [&](FfiClient& c) { return c.set_tun_fd(generation, fd); });
}

QELI_EXPORT int32_t qeli_client_set_wintun_adapter(uint64_t handle, uint64_t generation,
                                                   const uint8_t* adapter_name,
                                                   size_t adapter_name_len) {
  (void)generation;
  (void)adapter_name;
  (void)adapter_name_len;
  return with_client(handle, [](FfiClient&) { return rc::kUnsupported; });
}

QELI_EXPORT int32_t qeli_client_network_plan_result(uint64_t handle, uint64_t generation,
                                                    int32_t result_code, const uint8_t* reason,
                                                    size_t reason_len) {
  return answer(handle, generation, result_code, reason, reason_len, &FfiClient::plan_result);
}

QELI_EXPORT int32_t qeli_client_socket_protect_result(uint64_t handle, uint64_t request_sequence,
                                                      int32_t result_code, const uint8_t* reason,
                                                      size_t reason_len) {
  return answer(handle, request_sequence, result_code, reason, reason_len,
                &FfiClient::protect_result);
}

QELI_EXPORT int32_t qeli_client_server_identity_result(uint64_t handle, uint64_t request_sequence,
                                                       int32_t result_code, const uint8_t* reason,
                                                       size_t reason_len) {
  return answer(handle, request_sequence, result_code, reason, reason_len,
                &FfiClient::identity_result);
}

QELI_EXPORT int32_t qeli_client_poll_event(uint64_t handle, qeli_client_event_t* out_event,
                                           uint8_t* payload, size_t payload_capacity,
                                           size_t* out_payload_len) {
  // The arguments before the handle, as 0.7.16.
  if (out_event == nullptr || out_payload_len == nullptr) return rc::kInvalidArgument;
  std::uint32_t size = 0;
  std::memcpy(&size, out_event, sizeof size);  // struct_size, however the caller aligned it
  if (size < QELI_CLIENT_EVENT_V1_SIZE) return rc::kInvalidArgument;
  *out_payload_len = 0;
  return with_client(handle, [&](FfiClient& c) {
    return c.poll([&](const Event& e) {
      *out_payload_len = e.payload.size();
      write_event(out_event, e, size);
      if (e.payload.size() > payload_capacity) return rc::kBufferTooSmall;
      if (!e.payload.empty()) {
        if (payload == nullptr) return rc::kInvalidArgument;  // only a payload needs one
        std::memcpy(payload, e.payload.data(), e.payload.size());
      }
      return rc::kOk;
    });
  });
}

QELI_EXPORT int32_t qeli_client_state(uint64_t handle, uint32_t* out_state) {
  if (out_state == nullptr) return rc::kInvalidArgument;
  return with_client(handle, [&](FfiClient& c) {
    *out_state = static_cast<std::uint32_t>(c.state());
    return rc::kOk;
  });
}

QELI_EXPORT int32_t qeli_client_stats(uint64_t handle, qeli_client_stats_t* out_stats) {
  if (out_stats == nullptr) return rc::kInvalidArgument;
  std::uint32_t size = 0;
  std::memcpy(&size, out_stats, sizeof size);
  if (size < QELI_CLIENT_STATS_V1_SIZE) return rc::kInvalidArgument;
  return with_client(handle, [&](FfiClient& c) {
    const Stats s = c.stats();
    qeli_client_stats_t v{};
    v.struct_size = size;
    v.abi_version = QELI_CLIENT_ABI_VERSION;
    v.state = s.state;
    v.tx_packets = s.tx_packets;
    v.tx_bytes = s.tx_bytes;
    v.rx_packets = s.rx_packets;
    v.rx_bytes = s.rx_bytes;
    v.reconnects = s.reconnects;
    v.uptime_ms = s.uptime_ms;
    v.udp_kernel_drops = s.udp_kernel_drops;
    v.udp_internal_drops = s.internal_drops;
    v.udp_buffer_grows = s.udp_buffer_grows;
    v.udp_recv_buffer_bytes = s.udp_recv_buffer_bytes;
    std::memcpy(out_stats, &v, std::min<std::size_t>(size, sizeof v));
    return rc::kOk;
  });
}

QELI_EXPORT int32_t qeli_client_free(uint64_t handle) {
  return guarded([&] {
    auto c = registry().remove(handle);
    if (!c) return rc::kInvalidHandle;
    c->shutdown();  // a blocked run ends; its lease frees the object when it returns
    return rc::kOk;
  });
}
