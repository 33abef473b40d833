/*
 * libqeli: the qeli client core behind a C ABI — the transport-core ABI 1.10 of qeli 0.7.16
 * (function names, result codes, states, event kinds, struct layouts, JSON payloads, and
 * 0.7.16's behaviour behind them). It serves the apps that call this C ABI — 0.7.16's
 * desktop (C#) and iOS (Swift) apps; this build is for Linux. Android's app calls JNI
 * exports (Java_com_qeli_TransportCore_native*), which this library does not provide.
 * docs/LIBQELI.md is the manual (and lists what still differs); this header is the
 * contract.
 *
 * The app owns the UI, the TUN (or the packet flow), routes, DNS and the kill switch. The
 * core owns the carrier, the handshake, the crypto and the packet loops, and asks the app
 * for what it cannot do through a bounded event queue that the app polls:
 *
 *   QELI_CLIENT_NETWORK_PLAN     apply this address/routes/DNS, then answer with
 *                                qeli_client_network_plan_result (after qeli_client_set_tun_fd
 *                                when the app declared QELI_PLATFORM_TUN_FD);
 *   QELI_CLIENT_SOCKET_PROTECT   exempt {"fd":N} from the VPN, then answer with
 *                                qeli_client_socket_protect_result(event.sequence, …);
 *   QELI_CLIENT_SERVER_IDENTITY  trust {"server_id","public_key"}? answer with
 *                                qeli_client_server_identity_result(event.sequence, …).
 *
 * Lifecycle (a state change is a QELI_CLIENT_STATE_CHANGED event without payload):
 *
 *   new → CREATED ─start→ CONNECTING ─(run: handshake)→ AWAITING_NETWORK ─plan ACK→ RUNNING
 *   (new queues STATE_CHANGED(CREATED): every handle's first event, sequence 1);
 *   a refused plan, identity or protect, a failed connection or a session that ended
 *   without a stop → FAILED (an ERROR event first). One connection per run, as 0.7.16:
 *   reconnecting is the app's (stop, start, run again); the `reconnect*` keys are not applied;
 *   stop → STOPPING and STOPPED at once (from any state but STOPPED; a run winds down
 *   behind it); start from CREATED or STOPPED (after FAILED: stop, then start).
 *
 * Contract (0.7.16's; docs/LIBQELI.md "Contract"):
 *   - Handles are 64-bit values checked by generation: a freed or never-issued handle is
 *     QELI_CLIENT_INVALID_HANDLE, never a crash. 0 is never a handle.
 *   - Every pointer is checked: NULL where a buffer is required is
 *     QELI_CLIENT_INVALID_ARGUMENT; a length over a documented bound likewise.
 *   - Input bytes are read during the call only; output buffers are the caller's.
 *   - No C++ exception and no abort crosses the boundary (QELI_CLIENT_PANIC instead).
 *   - Thread safety: every function may be called from any thread. Calls on one handle are
 *     serialised, except qeli_client_run, which blocks without holding that lock: another
 *     thread polls and answers events and may call stop or free meanwhile. Exactly one run
 *     per start at a time (a second is QELI_CLIENT_PLATFORM_REJECTED).
 *   - Freeing a handle whose run is blocked stops that run first; run returns soon after.
 */
#ifndef QELI_TRANSPORT_CORE_H
#define QELI_TRANSPORT_CORE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ABI version: major in the high 16 bits (must match), minor in the low 16 (the library's
 * must be at least the header's). Unknown capability bits, event kinds and additive JSON
 * fields are to be ignored. */
#define QELI_CLIENT_ABI_VERSION UINT32_C(0x0001000a)
#define QELI_CLIENT_ABI_MAJOR(version) ((uint32_t)(version) >> 16)
#define QELI_CLIENT_ABI_MINOR(version) ((uint32_t)(version)&UINT32_C(0xffff))
#define QELI_CLIENT_ABI_IS_COMPATIBLE(library_version)                                         \
  (QELI_CLIENT_ABI_MAJOR(library_version) == QELI_CLIENT_ABI_MAJOR(QELI_CLIENT_ABI_VERSION) && \
   QELI_CLIENT_ABI_MINOR(library_version) >= QELI_CLIENT_ABI_MINOR(QELI_CLIENT_ABI_VERSION))

/* Result codes: 0 and 1 are successes, every negative value (known or not) a failure. */
enum qeli_client_result {
  QELI_CLIENT_OK = 0,
  QELI_CLIENT_NO_EVENT = 1,            /* nothing queued / nothing accepted right now */
  QELI_CLIENT_INVALID_ARGUMENT = -1,   /* NULL, a bad length, malformed JSON */
  QELI_CLIENT_INVALID_CONFIG = -2,     /* the config or link does not load */
  QELI_CLIENT_INVALID_STATE = -3,      /* not allowed in the handle's current state */
  QELI_CLIENT_STALE_PLAN = -4,         /* not the pending / running plan generation */
  QELI_CLIENT_EVENT_QUEUE_FULL = -5,   /* poll events first */
  QELI_CLIENT_BUFFER_TOO_SMALL = -6,   /* the needed size is reported, nothing consumed */
  QELI_CLIENT_INVALID_HANDLE = -7,     /* 0, freed, or never issued */
  QELI_CLIENT_PANIC = -8,              /* an internal failure, contained */
  QELI_CLIENT_UNSUPPORTED = -9,        /* not on this platform / without the capability */
  QELI_CLIENT_PLATFORM_REJECTED = -10, /* the app refused, or the run failed */
  QELI_CLIENT_STALE_REQUEST = -11      /* an unknown, answered or cancelled request id */
};

enum qeli_client_state {
  QELI_CLIENT_CREATED = 0,
  QELI_CLIENT_CONNECTING = 1,
  QELI_CLIENT_AWAITING_NETWORK = 2,
  QELI_CLIENT_RUNNING = 3,
  QELI_CLIENT_STOPPING = 4,
  QELI_CLIENT_STOPPED = 5,
  QELI_CLIENT_FAILED = 6
};

enum qeli_client_event_kind {
  QELI_CLIENT_STATE_CHANGED = 1,  /* no payload; event.state is the new state */
  QELI_CLIENT_NETWORK_PLAN = 2,   /* JSON; event.plan_generation */
  QELI_CLIENT_ERROR = 3,          /* UTF-8 text; event.error_code */
  QELI_CLIENT_SOCKET_PROTECT = 4, /* JSON {"fd":N}; event.sequence is the request id */
  QELI_CLIENT_SERVER_IDENTITY = 5 /* JSON {"server_id","public_key"}; event.sequence */
};

enum qeli_client_payload_format {
  QELI_CLIENT_PAYLOAD_NONE = 0,
  QELI_CLIENT_PAYLOAD_JSON = 1,
  QELI_CLIENT_PAYLOAD_UTF8 = 2
};

/* What the app can do (qeli_client_new's platform_capabilities). */
#define QELI_PLATFORM_ROUTES (UINT64_C(1) << 0)
#define QELI_PLATFORM_DNS (UINT64_C(1) << 1)
#define QELI_PLATFORM_KILL_SWITCH (UINT64_C(1) << 2)
#define QELI_PLATFORM_TUN_FD (UINT64_C(1) << 3)           /* hands over a TUN fd */
#define QELI_PLATFORM_TUN_PACKET_BATCH (UINT64_C(1) << 4) /* moves packets by push/pull */
#define QELI_PLATFORM_SOCKET_PROTECT (UINT64_C(1) << 5)
#define QELI_PLATFORM_SERVER_IDENTITY (UINT64_C(1) << 6)
#define QELI_PLATFORM_TUN_WINTUN (UINT64_C(1) << 7) /* Windows only: refused here */
/* Bits 48..63 of both masks are this implementation's extensions (an app written for the
 * original core never sets or sees them). X_IPV6: the app applies the NETWORK_PLAN's IPv6
 * fields ("tunnel_address6", "prefix_len6", "tunnel_gateway6", "routes6"; IPv6 entries in
 * "dns_servers" and "excluded_routes") to its TUN and carries IPv6 packets; only then, and
 * with the profile's `ipv6` on, does the core take IPv6 inside the tunnel from a server
 * that offers it (docs/PROTOCOL.md §21). Without it every plan and packet is IPv4. */
#define QELI_PLATFORM_X_IPV6 (UINT64_C(1) << 48)

/* What this core does (qeli_client_core_capabilities). */
#define QELI_CORE_STRICT_CONFIG (UINT64_C(1) << 0)
#define QELI_CORE_LIFECYCLE_EVENTS (UINT64_C(1) << 1)
#define QELI_CORE_NETWORK_PLAN_ACK (UINT64_C(1) << 2)
#define QELI_CORE_TUN_FD_OWNERSHIP (UINT64_C(1) << 3)
#define QELI_CORE_SOCKET_PROTECT_ACK (UINT64_C(1) << 4)
#define QELI_CORE_DEVICE_ID_INPUT (UINT64_C(1) << 5)
#define QELI_CORE_SERVER_IDENTITY_ACK (UINT64_C(1) << 6)
#define QELI_CORE_HANDSHAKE_NETWORK_INPUT (UINT64_C(1) << 7)
#define QELI_CORE_NATIVE_DATA_PLANE (UINT64_C(1) << 8)
#define QELI_CORE_TUN_PACKET_IO (UINT64_C(1) << 9)
#define QELI_CORE_UDP_DIAGNOSTIC (UINT64_C(1) << 10)
#define QELI_CORE_WINTUN_IO (UINT64_C(1) << 11)
#define QELI_CORE_X_IPV6_INSIDE (UINT64_C(1) << 48) /* honours QELI_PLATFORM_X_IPV6 */

/* One event's header. Set struct_size (QELI_CLIENT_EVENT_INIT) before the first poll: the
 * library keeps it and writes no byte past it; less than the 48-byte V1 prefix is
 * QELI_CLIENT_INVALID_ARGUMENT and consumes nothing. */
typedef struct qeli_client_event {
  uint32_t struct_size;
  uint32_t abi_version;
  uint32_t kind;           /* enum qeli_client_event_kind */
  uint32_t state;          /* the state when the event was queued */
  uint32_t payload_format; /* enum qeli_client_payload_format */
  uint32_t reserved;
  uint64_t sequence;        /* 1, 2, … per handle; a request's id */
  uint64_t plan_generation; /* NETWORK_PLAN: the generation to answer */
  int32_t error_code;       /* ERROR: a negative qeli_client_result */
  uint32_t payload_len;
} qeli_client_event_t;
#define QELI_CLIENT_EVENT_V1_SIZE UINT32_C(48)
#define QELI_CLIENT_EVENT_INIT \
  { (uint32_t)sizeof(qeli_client_event_t), QELI_CLIENT_ABI_VERSION, 0, 0, 0, 0, 0, 0, 0, 0 }

/* Counters of the handle (V1: 64 bytes; V2, ABI 1.10: 96 bytes). Set struct_size
 * (QELI_CLIENT_STATS_INIT); fields past the caller's struct_size are not written. */
typedef struct qeli_client_stats {
  uint32_t struct_size;
  uint32_t abi_version;
  uint32_t state;
  uint32_t reserved;
  uint64_t tx_packets; /* packets into the tunnel, all sessions of this handle */
  uint64_t tx_bytes;
  uint64_t rx_packets; /* packets out of the tunnel */
  uint64_t rx_bytes;
  uint64_t reconnects;            /* always 0: one connection per run (as 0.7.16 over its ABI) */
  uint64_t uptime_ms;             /* since qeli_client_new, in every state (as 0.7.16) */
  uint64_t udp_kernel_drops;      /* datagrams the kernel dropped at the UDP socket's full
                                     receive queue, all sessions (0 for TCP) */
  uint64_t udp_internal_drops;    /* packets dropped: a full queue, a pushed packet over the MTU */
  uint64_t udp_buffer_grows;      /* times the automatic receive buffer grew after kernel
                                     drops (at most 2 a session; 0 for TCP) */
  uint64_t udp_recv_buffer_bytes; /* the UDP socket's receive buffer as the kernel granted it
                                     (SO_RCVBUF), the live session's or the last one's */
} qeli_client_stats_t;
#define QELI_CLIENT_STATS_V1_SIZE UINT32_C(64)
#define QELI_CLIENT_STATS_V2_SIZE UINT32_C(96)
#define QELI_CLIENT_STATS_INIT                                                                    \
  {                                                                                               \
    (uint32_t)sizeof(qeli_client_stats_t), QELI_CLIENT_ABI_VERSION, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, \
        0, 0                                                                                      \
  }

#if defined(__cplusplus) && __cplusplus >= 201103L
static_assert(sizeof(qeli_client_event_t) == QELI_CLIENT_EVENT_V1_SIZE, "event layout");
static_assert(sizeof(qeli_client_stats_t) == QELI_CLIENT_STATS_V2_SIZE, "stats layout");
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
_Static_assert(sizeof(qeli_client_event_t) == QELI_CLIENT_EVENT_V1_SIZE, "event layout");
_Static_assert(sizeof(qeli_client_stats_t) == QELI_CLIENT_STATS_V2_SIZE, "stats layout");
#endif

/* QELI_CLIENT_ABI_VERSION of the library. Any thread. */
uint32_t qeli_client_abi_version(void);
/* QELI_CORE_* bits this library implements. Any thread. */
uint64_t qeli_client_core_capabilities(void);

/* Whether a UDP profile's server answers (ABI 1.8): the profile's own first flight
 * (fake-TLS, QUIC-shaped or obfs, with its junk) to all of the server's addresses at once
 * (≤ 16), 2 attempts of `timeout_ms` (100..5000) each, after a name resolution bounded by
 * `timeout_ms` too; never a credential, and no credential or pinned key needed. `config` as
 * for qeli_client_new (NULL, empty or over 256 KiB: INVALID_ARGUMENT). OK with
 * *out_latency_ms the time to the first reply; PLATFORM_REJECTED when nothing answered;
 * INVALID_CONFIG for a TCP profile or one that does not load. Blocks; any thread. */
int32_t qeli_client_udp_probe(const uint8_t* config, size_t config_len, uint32_t timeout_ms,
                              uint64_t* out_latency_ms);

/* A handle for `config` (flat INI or a qeli:// link, UTF-8, ≤ 256 KiB; loaded and checked as
 * `qeli client` does, accepting what 0.7.16 accepts). platform_capabilities: QELI_PLATFORM_*
 * (TUN_FD or TUN_PACKET_BATCH is needed to carry packets; WINTUN is UNSUPPORTED).
 * event_capacity: 2..256, 0 = 64. OK and *out_handle ≠ 0 (its first event queued:
 * STATE_CHANGED(CREATED)); INVALID_CONFIG for a profile that is empty (NULL/0 too), not
 * UTF-8, over 256 KiB or does not load; INVALID_ARGUMENT for a NULL pointer or a capacity
 * out of range; UNSUPPORTED. */
int32_t qeli_client_new(const uint8_t* config, size_t config_len, uint64_t platform_capabilities,
                        uint32_t event_capacity, uint64_t* out_handle);
/* CREATED or STOPPED → CONNECTING (else INVALID_STATE; EVENT_QUEUE_FULL without room for
 * its event). Does not connect: qeli_client_run does. A start may follow a stop at once,
 * while the stopped run still winds down: that run no longer touches the handle. */
int32_t qeli_client_start(uint64_t handle);
/* Connects once and carries the tunnel until stop, free or the session's end (no reconnect:
 * the app reconnects, each run's plan with a new generation). Blocks: call it from
 * an IO thread while another thread polls events. `input`: NULL/0 or UTF-8 JSON ≤ 16 KiB
 * with optional "carrier_addresses" (≤ 16 IPv4 or IPv6 strings to use instead of resolving
 * the server name) and "fallback_dns_servers" (≤ 8 IPv4 or IPv6 strings for the plan when
 * neither config nor server name a usable resolver); another key or a wrong type is
 * INVALID_ARGUMENT. OK when a stop (or free) ended it; PLATFORM_REJECTED when the run
 * failed (ERROR then FAILED say why), and — with no event and nothing changed — when the
 * state is not CONNECTING, a run is active, no device id was set, or an input value is
 * not an address or a list is too long (as 0.7.16). */
int32_t qeli_client_run(uint64_t handle, const uint8_t* input, size_t input_len);

/* Packet mode (QELI_PLATFORM_TUN_PACKET_BATCH), for the RUNNING generation only (else
 * INVALID_STATE, as without the capability; STALE_PLAN for another generation). `packets`
 * holds packet_count (≤ 64) IP packets back to back (IPv4; IPv6 too when the plan had
 * "tunnel_address6"), lengths[i] each (1..65535), summing to packets_len. Push queues what
 * fits: OK when all was taken, NO_EVENT with *out_accepted < packet_count when the queue is
 * full (push the rest later); a packet over the plan's MTU is taken and dropped alone,
 * counted in udp_internal_drops. Pull copies queued packets out: OK with
 * *out_packet_count ≥ 1, NO_EVENT when none is queued; a buffer of 65535 bytes (0.7.16's
 * minimum) always takes the first; a smaller one is BUFFER_TOO_SMALL when the first does
 * not fit (its size in *out_bytes). */
int32_t qeli_client_tun_push(uint64_t handle, uint64_t generation, const uint8_t* packets,
                             size_t packets_len, const uint32_t* lengths, size_t packet_count,
                             size_t* out_accepted);
int32_t qeli_client_tun_pull(uint64_t handle, uint64_t generation, uint8_t* packets,
                             size_t packets_capacity, uint32_t* lengths, size_t length_capacity,
                             size_t* out_packet_count, size_t* out_bytes);

/* Cancels the run and pending requests, closes adopted fds, then queues STOPPING and STOPPED
 * and is STOPPED at once (the run returns OK soon after). Any state; STOPPED again is OK.
 * EVENT_QUEUE_FULL when fewer than 2 slots are free: the run is cancelled all the same,
 * the state stays — poll, then stop again. */
int32_t qeli_client_stop(uint64_t handle);
/* The device id sent in the handshake: exactly 16 bytes, not all zero (INVALID_ARGUMENT);
 * in CREATED or STOPPED only (INVALID_STATE). Required: a run without one is refused. */
int32_t qeli_client_set_device_id(uint64_t handle, const uint8_t* device_id, size_t device_id_len);
/* ABI 1.5 (QELI_CORE_HANDSHAKE_NETWORK_INPUT): an app that ran its own handshake hands in
 * UTF-8 JSON ≤ 256 KiB {"auth_ok": the complete "OK:{…}" plaintext, "effective_mtu":
 * 576..16638, optional "fallback_dns_servers": ≤ 8 addresses}; the core parses the push
 * itself and queues STATE_CHANGED(AWAITING_NETWORK) + NETWORK_PLAN (no "carrier_address"),
 * answered like a run's plan; OK with its generation in *out_generation. INVALID_ARGUMENT
 * for a malformed input, push or plan; INVALID_STATE unless CONNECTING or RUNNING with no
 * plan pending; UNSUPPORTED when the plan needs a QELI_PLATFORM_* bit not declared;
 * EVENT_QUEUE_FULL without two free slots. No data flows from it: the app's own data
 * plane carries the session. */
int32_t qeli_client_publish_handshake_network(uint64_t handle, const uint8_t* input,
                                              size_t input_len, uint64_t* out_generation);
/* QELI_PLATFORM_TUN_FD: duplicates `fd` (close-on-exec) for the pending plan generation;
 * the caller keeps its own. Before the plan's positive answer, which it requires. */
int32_t qeli_client_set_tun_fd(uint64_t handle, uint64_t generation, int32_t fd);
/* Windows only: UNSUPPORTED. */
int32_t qeli_client_set_wintun_adapter(uint64_t handle, uint64_t generation,
                                       const uint8_t* adapter_name, size_t adapter_name_len);
/* The answers. `reason` (NULL/0 or UTF-8 of any length, else INVALID_ARGUMENT) is the text
 * of a refusal's ERROR event, cut to 512 characters; without one, 0.7.16's fixed text. A
 * refusal takes effect in this call: ERROR (-10) and STATE_CHANGED(FAILED) are queued and
 * the state is FAILED when it returns (EVENT_QUEUE_FULL, nothing answered, when fewer than
 * 2 slots are free; an acceptance of a plan needs 1).
 *
 * The answer to NETWORK_PLAN `generation`: result_code 0 applied (→ RUNNING), anything else
 * refused (→ FAILED). Unanswered for 45 s, the plan fails the run (as does the first
 * SOCKET_PROTECT of a run unanswered within the profile's `timeout`). */
int32_t qeli_client_network_plan_result(uint64_t handle, uint64_t generation, int32_t result_code,
                                        const uint8_t* reason, size_t reason_len);
/* The answer to SOCKET_PROTECT `request_sequence`: 0 protected; anything else refused
 * (the socket is closed, → FAILED). */
int32_t qeli_client_socket_protect_result(uint64_t handle, uint64_t request_sequence,
                                          int32_t result_code, const uint8_t* reason,
                                          size_t reason_len);
/* The answer to SERVER_IDENTITY `request_sequence`: 0 trust the key; anything else refuse
 * it (→ FAILED, no packet flows). With QELI_PLATFORM_SERVER_IDENTITY it is asked for every
 * session, after the server proved it holds that key (a pinned key was also checked
 * against the pin already). Without the capability a profile that pins no key (INI
 * `bind_static = false`, no `key`) trusts the key it meets for the handle's life. */
int32_t qeli_client_server_identity_result(uint64_t handle, uint64_t request_sequence,
                                           int32_t result_code, const uint8_t* reason,
                                           size_t reason_len);
/* The oldest event: OK, or NO_EVENT. When payload_capacity is less than the payload,
 * BUFFER_TOO_SMALL with *out_payload_len the size needed, and the event stays queued. */
int32_t qeli_client_poll_event(uint64_t handle, qeli_client_event_t* out_event, uint8_t* payload,
                               size_t payload_capacity, size_t* out_payload_len);
int32_t qeli_client_state(uint64_t handle, uint32_t* out_state);
int32_t qeli_client_stats(uint64_t handle, qeli_client_stats_t* out_stats);
/* Stops a run, cancels requests, drops queued events, closes adopted fds; the handle is
 * invalid afterwards (a second free: INVALID_HANDLE). */
int32_t qeli_client_free(uint64_t handle);

#ifdef __cplusplus
}
#endif

#endif /* QELI_TRANSPORT_CORE_H */
