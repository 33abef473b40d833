/*
 * The C harness of libqeli's ABI (issue 19): linked against libqeli.so through
 * <qeli_transport_core.h> alone, driven by tests/e2e/libqeli.sh against a real `qeli server`
 * in network namespaces. Each subcommand exits 0 when every check held and prints the
 * failed check otherwise.
 *
 *   abi_harness misuse PROFILE                 every misuse gets its documented code
 *   abi_harness lifecycle PROFILE [options]    new → start → run → plan → packets → stop
 *       --protect accept|refuse   declare SOCKET_PROTECT and answer so
 *       --identity accept|refuse  declare SERVER_IDENTITY and answer so (PROFILE pins no key)
 *       --refuse-plan             refuse the network plan
 *       --tun-fd DEV              hand over a TUN fd (DEV), ping through the kernel
 *       --bulk N                  N pings of 1000 bytes through push/pull
 *       --stop-in-transfer        stop while a thread pushes packets
 *       --second-start            start and run the handle again after the stop
 *       --ipv6                    declare QELI_PLATFORM_X_IPV6 (the server has an IPv6 plan):
 *                                 the plan carries IPv6 and ICMPv6 echoes go through
 *                                 push/pull; without it the plan must carry none
 *       --await-drop              once RUNNING, print "awaiting a drop" and wait for the
 *                                 session to end (the script stops the server): one
 *                                 connection per run, so ERROR(-10) + FAILED, no reconnect
 *       --udp                     PROFILE is UDP: the stats show its socket's receive
 *                                 buffer (without it: no UDP socket figures at all)
 *   abi_harness plan-timeout PROFILE           the plan is never answered: FAILED after 45 s
 *   abi_harness stop-during-connect PROFILE    PROFILE's server never answers
 *   abi_harness free-queued PROFILE            free while events are queued and run blocks
 *   abi_harness threads PROFILE                many threads, shared and own handles
 *   abi_harness udp-probe PROFILE answer|silent qeli_client_udp_probe's verdict
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <qeli_transport_core.h>

#define CHECK(cond, ...)                                              \
  do {                                                                \
    if (!(cond)) {                                                    \
      fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                   \
      fputc('\n', stderr);                                            \
      exit(1);                                                        \
    }                                                                 \
  } while (0)
#define EXPECT_RC(expr, want)                                                   \
  do {                                                                          \
    int32_t got_ = (expr);                                                      \
    CHECK(got_ == (want), "%s returned %d, want %d", #expr, got_, (int)(want)); \
  } while (0)

static const char* profile;
static size_t profile_len;

static uint64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}
static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* ---- the run thread ---- */
struct runner {
  uint64_t handle;
  pthread_t thread;
  atomic_int done; /* set by the run thread (the harness runs under TSan too) */
  int32_t rc;
};
static void* run_main(void* arg) {
  struct runner* r = arg;
  r->rc = qeli_client_run(r->handle, NULL, 0);
  atomic_store(&r->done, 1);
  return NULL;
}
static void run_async(struct runner* r, uint64_t h) {
  r->handle = h;
  atomic_store(&r->done, 0);
  CHECK(pthread_create(&r->thread, NULL, run_main, r) == 0, "pthread_create");
}
static int32_t run_join(struct runner* r, uint64_t timeout_ms) {
  const uint64_t end = now_ms() + timeout_ms;
  while (!atomic_load(&r->done) && now_ms() < end) sleep_ms(10);
  CHECK(atomic_load(&r->done), "qeli_client_run did not return within %llu ms",
        (unsigned long long)timeout_ms);
  pthread_join(r->thread, NULL);
  return r->rc;
}

/* ---- the event pump: answers requests by policy, records what it saw ---- */
struct policy {
  int protect; /* 0 not declared, 1 accept, -1 refuse */
  int identity;
  int refuse_plan;
  const char* tun_dev; /* hand over a TUN fd */
  int tun_fd;
  int ipv6;        /* declared QELI_PLATFORM_X_IPV6 */
  int ignore_plan; /* never answer the plan */
};
struct seen {
  uint32_t states[64];
  size_t nstates;
  int protects, identities, plans, errors;
  int32_t error_code; /* the last ERROR event's */
  uint64_t generation;
  uint64_t last_sequence;
  char address[32], gateway[32];
  int prefix;
  char address6[64], gateway6[64]; /* empty: the plan carried no IPv6 */
  char error[512];
};

static int json_str(const char* json, const char* key, char* out, size_t cap) {
  char pat[64];
  snprintf(pat, sizeof pat, "\"%s\":\"", key);
  const char* p = strstr(json, pat);
  if (p == NULL) return -1;
  p += strlen(pat);
  size_t n = 0;
  while (p[n] && p[n] != '"' && n + 1 < cap) ++n;
  memcpy(out, p, n);
  out[n] = 0;
  return 0;
}

static int open_tun(const char* name) {
  int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
  CHECK(fd >= 0, "open /dev/net/tun");
  struct ifreq ifr;
  memset(&ifr, 0, sizeof ifr);
  ifr.ifr_flags = IFF_TUN | IFF_NO_PI;
  snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", name);
  CHECK(ioctl(fd, TUNSETIFF, &ifr) == 0, "TUNSETIFF %s", name);
  return fd;
}

static void sh(const char* fmt, ...) {
  char cmd[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(cmd, sizeof cmd, fmt, ap);
  va_end(ap);
  CHECK(system(cmd) == 0, "%s", cmd);
}

static void on_event(uint64_t h, const qeli_client_event_t* ev, const char* payload,
                     struct policy* pol, struct seen* s) {
  CHECK(ev->sequence > s->last_sequence, "sequence %llu after %llu",
        (unsigned long long)ev->sequence, (unsigned long long)s->last_sequence);
  s->last_sequence = ev->sequence;
  CHECK(ev->abi_version == QELI_CLIENT_ABI_VERSION, "event abi_version %#x", ev->abi_version);
  switch (ev->kind) {
    case QELI_CLIENT_STATE_CHANGED:
      CHECK(ev->payload_format == QELI_CLIENT_PAYLOAD_NONE && ev->payload_len == 0, "payload");
      if (s->nstates < 64) s->states[s->nstates++] = ev->state;
      break;
    case QELI_CLIENT_ERROR:
      CHECK(ev->payload_format == QELI_CLIENT_PAYLOAD_UTF8 && ev->error_code < 0, "error event");
      ++s->errors;
      s->error_code = ev->error_code;
      {
        size_t len = strlen(payload);
        if (len >= sizeof s->error) len = sizeof s->error - 1;
        memcpy(s->error, payload, len);
        s->error[len] = 0;
      }
      fprintf(stderr, "error event %d: %s\n", ev->error_code, payload);
      break;
    case QELI_CLIENT_SOCKET_PROTECT: {
      uint32_t st = 99;
      CHECK(pol->protect != 0, "SOCKET_PROTECT without the capability");
      CHECK(ev->payload_format == QELI_CLIENT_PAYLOAD_JSON && strstr(payload, "\"fd\":"), "%s",
            payload);
      ++s->protects;
      EXPECT_RC(qeli_client_socket_protect_result(h, ev->sequence, pol->protect > 0 ? 0 : -1,
                                                  (const uint8_t*)"test refuses", 12),
                QELI_CLIENT_OK);
      /* A refusal takes effect in the answering call (0.7.16): FAILED now. */
      if (pol->protect < 0)
        CHECK(qeli_client_state(h, &st) == 0 && st == QELI_CLIENT_FAILED, "%u", st);
      /* One answer per request. */
      EXPECT_RC(qeli_client_socket_protect_result(h, ev->sequence, 0, NULL, 0),
                QELI_CLIENT_STALE_REQUEST);
      break;
    }
    case QELI_CLIENT_SERVER_IDENTITY: {
      CHECK(pol->identity != 0, "SERVER_IDENTITY without the capability");
      char key[80];
      CHECK(json_str(payload, "public_key", key, sizeof key) == 0 && strlen(key) == 64, "%s",
            payload);
      CHECK(strstr(payload, "\"server_id\":\"") != NULL, "%s", payload);
      ++s->identities;
      EXPECT_RC(qeli_client_server_identity_result(h, ev->sequence, pol->identity > 0 ? 0 : 1,
                                                   (const uint8_t*)"unknown key", 11),
                QELI_CLIENT_OK);
      uint32_t st = 99;
      if (pol->identity < 0)
        CHECK(qeli_client_state(h, &st) == 0 && st == QELI_CLIENT_FAILED, "%u", st);
      break;
    }
    case QELI_CLIENT_NETWORK_PLAN: {
      ++s->plans;
      CHECK(ev->payload_format == QELI_CLIENT_PAYLOAD_JSON && ev->plan_generation > s->generation,
            "plan generation %llu", (unsigned long long)ev->plan_generation);
      for (const char* k =
               "tunnel_address\0prefix_len\0mtu\0tunnel_gateway\0routes\0dns_servers\0"
               "full_tunnel\0kill_switch\0max_streams\0adaptive\0pushed_routes\0"
               "data_plane\0carrier_address\0";
           *k; k += strlen(k) + 1) {
        char pat[64];
        snprintf(pat, sizeof pat, "\"%s\":", k);
        CHECK(strstr(payload, pat) != NULL, "plan lacks %s: %s", k, payload);
      }
      CHECK(json_str(payload, "tunnel_address", s->address, sizeof s->address) == 0 &&
                json_str(payload, "tunnel_gateway", s->gateway, sizeof s->gateway) == 0,
            "%s", payload);
      s->prefix = atoi(strstr(payload, "\"prefix_len\":") + 13);
      s->address6[0] = s->gateway6[0] = 0;
      if (pol->ipv6) {
        CHECK(json_str(payload, "tunnel_address6", s->address6, sizeof s->address6) == 0 &&
                  json_str(payload, "tunnel_gateway6", s->gateway6, sizeof s->gateway6) == 0 &&
                  strstr(payload, "\"routes6\":[") != NULL,
              "an X_IPV6 app got no IPv6 plan: %s", payload);
      } else {
        /* An app of the original ABI sees the original's plan. */
        CHECK(strstr(payload, "address6") == NULL && strstr(payload, "routes6") == NULL,
              "IPv6 in the plan of an app without X_IPV6: %s", payload);
      }
      if (pol->ignore_plan) {
        s->generation = ev->plan_generation;
        break;
      }
      /* A wrong generation is refused and changes nothing. */
      EXPECT_RC(qeli_client_network_plan_result(h, ev->plan_generation + 7, 0, NULL, 0),
                QELI_CLIENT_STALE_PLAN);
      if (pol->refuse_plan) {
        EXPECT_RC(qeli_client_network_plan_result(h, ev->plan_generation, -10,
                                                  (const uint8_t*)"routes not allowed", 18),
                  QELI_CLIENT_OK);
        uint32_t st = 99;
        CHECK(qeli_client_state(h, &st) == 0 && st == QELI_CLIENT_FAILED, "%u", st);
        break;
      }
      if (pol->tun_dev) {
        /* The fd comes first: an ACK without it is refused. */
        EXPECT_RC(qeli_client_network_plan_result(h, ev->plan_generation, 0, NULL, 0),
                  QELI_CLIENT_INVALID_STATE);
        if (pol->tun_fd < 0) pol->tun_fd = open_tun(pol->tun_dev);
        EXPECT_RC(qeli_client_set_tun_fd(h, ev->plan_generation + 1, pol->tun_fd),
                  QELI_CLIENT_STALE_PLAN);
        EXPECT_RC(qeli_client_set_tun_fd(h, ev->plan_generation, pol->tun_fd), QELI_CLIENT_OK);
        sh("ip addr flush dev %s && ip addr add %s/%d dev %s && ip link set %s up mtu 1400",
           pol->tun_dev, s->address, s->prefix, pol->tun_dev, pol->tun_dev);
      }
      EXPECT_RC(qeli_client_network_plan_result(h, ev->plan_generation, 0, NULL, 0),
                QELI_CLIENT_OK);
      /* Answered: a second answer finds no pending plan. */
      EXPECT_RC(qeli_client_network_plan_result(h, ev->plan_generation, 0, NULL, 0),
                QELI_CLIENT_INVALID_STATE);
      s->generation = ev->plan_generation;
      break;
    }
    default: break; /* unknown kinds are ignored, as the ABI says */
  }
}

/* Polls until qeli_client_state() is `want` (and its event was seen) or timeout. */
static int pump_until(uint64_t h, uint32_t want, uint64_t timeout_ms, struct policy* pol,
                      struct seen* s) {
  const uint64_t end = now_ms() + timeout_ms;
  char payload[65536];
  while (now_ms() < end) {
    qeli_client_event_t ev = QELI_CLIENT_EVENT_INIT;
    size_t n = 0;
    int32_t rc = qeli_client_poll_event(h, &ev, (uint8_t*)payload, sizeof payload - 1, &n);
    if (rc == QELI_CLIENT_OK) {
      CHECK(n == ev.payload_len && n < sizeof payload, "payload length");
      payload[n] = 0;
      on_event(h, &ev, payload, pol, s);
      if (ev.kind == QELI_CLIENT_STATE_CHANGED && ev.state == want) return 1;
      continue;
    }
    CHECK(rc == QELI_CLIENT_NO_EVENT, "poll_event %d", rc);
    sleep_ms(5);
  }
  return 0;
}

static int saw_states(const struct seen* s, const uint32_t* want, size_t n) {
  size_t j = 0;
  for (size_t i = 0; i < s->nstates && j < n; ++i)
    if (s->states[i] == want[j]) ++j;
  return j == n;
}

/* ---- ICMP through push/pull ---- */
static uint16_t csum(const uint8_t* p, size_t n) {
  uint32_t sum = 0;
  for (size_t i = 0; i + 1 < n; i += 2) sum += (uint32_t)(p[i] << 8 | p[i + 1]);
  if (n & 1) sum += (uint32_t)(p[n - 1] << 8);
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return (uint16_t)~sum;
}
static void parse_ip(const char* s, uint8_t out[4]) {
  unsigned a, b, c, d;
  CHECK(sscanf(s, "%u.%u.%u.%u", &a, &b, &c, &d) == 4, "ip %s", s);
  out[0] = (uint8_t)a, out[1] = (uint8_t)b, out[2] = (uint8_t)c, out[3] = (uint8_t)d;
}
/* The ICMP identifier of this round's echo requests: replies are counted only with it, so
 * replies to an earlier round's (a resumed session delivers what the server held for it)
 * never count for this one. */
static uint16_t g_echo_id = 0x1234;
static uint32_t echo(uint8_t* pkt, uint32_t len, const struct seen* s, uint16_t seq) {
  uint8_t src[4], dst[4];
  parse_ip(s->address, src);
  parse_ip(s->gateway, dst);
  memset(pkt, 0, len);
  pkt[0] = 0x45, pkt[2] = (uint8_t)(len >> 8), pkt[3] = (uint8_t)len, pkt[8] = 64, pkt[9] = 1;
  memcpy(pkt + 12, src, 4);
  memcpy(pkt + 16, dst, 4);
  uint16_t c = csum(pkt, 20);
  pkt[10] = (uint8_t)(c >> 8), pkt[11] = (uint8_t)c;
  pkt[20] = 8, pkt[24] = (uint8_t)(g_echo_id >> 8), pkt[25] = (uint8_t)g_echo_id,
  pkt[26] = (uint8_t)(seq >> 8), pkt[27] = (uint8_t)seq;
  c = csum(pkt + 20, len - 20);
  pkt[22] = (uint8_t)(c >> 8), pkt[23] = (uint8_t)c;
  return len;
}
/* An ICMPv6 echo request (RFC 4443 §4.1) from the plan's IPv6 address to its gateway. */
static uint32_t echo6(uint8_t* pkt, uint32_t len, const struct seen* s, uint16_t seq) {
  memset(pkt, 0, len);
  const uint32_t plen = len - 40;
  pkt[0] = 0x60, pkt[4] = (uint8_t)(plen >> 8), pkt[5] = (uint8_t)plen, pkt[6] = 58, pkt[7] = 64;
  CHECK(inet_pton(AF_INET6, s->address6, pkt + 8) == 1, "address6 %s", s->address6);
  CHECK(inet_pton(AF_INET6, s->gateway6, pkt + 24) == 1, "gateway6 %s", s->gateway6);
  uint8_t* icmp = pkt + 40;
  icmp[0] = 128, icmp[4] = (uint8_t)(g_echo_id >> 8), icmp[5] = (uint8_t)g_echo_id,
  icmp[6] = (uint8_t)(seq >> 8), icmp[7] = (uint8_t)seq;
  /* The checksum covers the pseudo-header (addresses, length, next header) too. */
  uint32_t sum = 0;
  for (int i = 8; i < 40; i += 2) sum += (uint32_t)(pkt[i] << 8 | pkt[i + 1]);
  sum += plen + 58;
  for (uint32_t i = 0; i + 1 < plen; i += 2) sum += (uint32_t)(icmp[i] << 8 | icmp[i + 1]);
  if (plen & 1) sum += (uint32_t)(icmp[plen - 1] << 8);
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  const uint16_t c = (uint16_t)~sum;
  icmp[2] = (uint8_t)(c >> 8), icmp[3] = (uint8_t)c;
  return len;
}
/* Whether `p` (n bytes) is an echo reply of either family to this round's requests. */
static int is_echo_reply(const uint8_t* p, size_t n) {
  const uint8_t id_hi = (uint8_t)(g_echo_id >> 8), id_lo = (uint8_t)g_echo_id;
  if (n >= 28 && (p[0] >> 4) == 4)
    return p[9] == 1 && p[20] == 0 && p[24] == id_hi && p[25] == id_lo;
  return n >= 48 && (p[0] >> 4) == 6 && p[6] == 58 && p[40] == 129 && p[44] == id_hi &&
         p[45] == id_lo;
}
/* Pulls and drops whatever arrives until `quiet_ms` pass without a packet (at most 5 s):
 * what a resumed session delivers from before the round. Returns how many. */
static int drain(uint64_t h, uint64_t gen, uint64_t quiet_ms) {
  static uint8_t buf[1 << 16];
  uint32_t lens[64];
  int n = 0;
  const uint64_t end = now_ms() + 5000;
  uint64_t last = now_ms();
  while (now_ms() < end && now_ms() - last < quiet_ms) {
    size_t packets = 0, bytes = 0;
    if (qeli_client_tun_pull(h, gen, buf, sizeof buf, lens, 64, &packets, &bytes) !=
        QELI_CLIENT_OK) {
      sleep_ms(1);
      continue;
    }
    n += (int)packets;
    last = now_ms();
  }
  return n;
}
/* Replies pulled within `wait_ms` (echo replies only). */
static int pull_replies(uint64_t h, uint64_t gen, uint64_t wait_ms, int want) {
  static uint8_t buf[1 << 16];
  uint32_t lens[64];
  int got = 0;
  const uint64_t end = now_ms() + wait_ms;
  while (got < want && now_ms() < end) {
    size_t packets = 0, bytes = 0;
    int32_t rc = qeli_client_tun_pull(h, gen, buf, sizeof buf, lens, 64, &packets, &bytes);
    if (rc == QELI_CLIENT_NO_EVENT) {
      sleep_ms(1);
      continue;
    }
    CHECK(rc == QELI_CLIENT_OK, "tun_pull %d", rc);
    size_t off = 0, sum = 0;
    for (size_t k = 0; k < packets; ++k) sum += lens[k];
    CHECK(sum == bytes, "pull lengths %zu vs %zu", sum, bytes);
    for (size_t k = 0; k < packets; off += lens[k++])
      if (is_echo_reply(buf + off, lens[k])) ++got;
  }
  return got;
}
static int ping_batch(uint64_t h, uint64_t gen, const struct seen* s, int count, uint32_t size,
                      uint16_t seq0, int v6) {
  static uint8_t pkts[64 * 1500];
  uint32_t lens[64];
  int replies = 0;
  for (int done = 0; done < count;) {
    int n = count - done < 32 ? count - done : 32;
    size_t total = 0;
    for (int i = 0; i < n; ++i) {
      lens[i] = v6 ? echo6(pkts + total, size, s, (uint16_t)(seq0 + done + i))
                   : echo(pkts + total, size, s, (uint16_t)(seq0 + done + i));
      total += lens[i];
    }
    size_t accepted = 0;
    int32_t rc = qeli_client_tun_push(h, gen, pkts, total, lens, (size_t)n, &accepted);
    CHECK(rc == QELI_CLIENT_OK || rc == QELI_CLIENT_NO_EVENT, "tun_push %d", rc);
    replies += pull_replies(h, gen, 3000, (int)accepted);
    done += n;
  }
  return replies;
}

struct pusher {
  uint64_t h, gen;
  const struct seen* s;
  atomic_int stop;
  int pushes;
};
static void* push_main(void* arg) {
  struct pusher* p = arg;
  uint8_t pkt[1028];
  while (!atomic_load(&p->stop)) {
    uint32_t len = echo(pkt, sizeof pkt, p->s, 7);
    size_t accepted = 0;
    int32_t rc = qeli_client_tun_push(p->h, p->gen, pkt, len, &len, 1, &accepted);
    /* Once the stop lands, the generation is gone: INVALID_STATE or STALE_PLAN. */
    CHECK(rc == QELI_CLIENT_OK || rc == QELI_CLIENT_NO_EVENT || rc == QELI_CLIENT_INVALID_STATE ||
              rc == QELI_CLIENT_STALE_PLAN,
          "tun_push during stop %d", rc);
    if (rc == QELI_CLIENT_INVALID_STATE) break;
    ++p->pushes;
  }
  return NULL;
}

static const uint8_t device_id[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
/* A handle with a device id (0.7.16: a run needs one). */
static uint64_t new_handle(uint64_t caps) {
  uint64_t h = 0;
  EXPECT_RC(qeli_client_new((const uint8_t*)profile, profile_len, caps, 0, &h), QELI_CLIENT_OK);
  CHECK(h != 0, "handle 0");
  EXPECT_RC(qeli_client_set_device_id(h, device_id, sizeof device_id), QELI_CLIENT_OK);
  return h;
}
static uint32_t state_of(uint64_t h) {
  uint32_t st = 99;
  EXPECT_RC(qeli_client_state(h, &st), QELI_CLIENT_OK);
  return st;
}

/* ---- subcommands ---- */
static int lifecycle(int argc, char** argv) {
  struct policy pol = {0, 0, 0, NULL, -1, 0, 0};
  int bulk = 0, stop_in_transfer = 0, second_start = 0, await_drop = 0, udp = 0;
  for (int i = 0; i < argc; ++i) {
    if (!strcmp(argv[i], "--protect"))
      pol.protect = !strcmp(argv[++i], "accept") ? 1 : -1;
    else if (!strcmp(argv[i], "--identity"))
      pol.identity = !strcmp(argv[++i], "accept") ? 1 : -1;
    else if (!strcmp(argv[i], "--refuse-plan"))
      pol.refuse_plan = 1;
    else if (!strcmp(argv[i], "--tun-fd"))
      pol.tun_dev = argv[++i];
    else if (!strcmp(argv[i], "--bulk"))
      bulk = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--stop-in-transfer"))
      stop_in_transfer = 1;
    else if (!strcmp(argv[i], "--second-start"))
      second_start = 1;
    else if (!strcmp(argv[i], "--ipv6"))
      pol.ipv6 = 1;
    else if (!strcmp(argv[i], "--await-drop"))
      await_drop = 1;
    else if (!strcmp(argv[i], "--udp"))
      udp = 1;
    else
      CHECK(0, "unknown option %s", argv[i]);
  }
  uint64_t caps = QELI_PLATFORM_ROUTES | QELI_PLATFORM_DNS |
                  (pol.tun_dev ? QELI_PLATFORM_TUN_FD : QELI_PLATFORM_TUN_PACKET_BATCH);
  if (pol.protect) caps |= QELI_PLATFORM_SOCKET_PROTECT;
  if (pol.identity) caps |= QELI_PLATFORM_SERVER_IDENTITY;
  if (pol.ipv6) caps |= QELI_PLATFORM_X_IPV6;
  const int failing = pol.protect < 0 || pol.identity < 0 || pol.refuse_plan;
  uint64_t h = new_handle(caps);
  CHECK(state_of(h) == QELI_CLIENT_CREATED, "not CREATED");
  /* 0.7.16: a run out of turn is PLATFORM_REJECTED, with no event. */
  EXPECT_RC(qeli_client_run(h, NULL, 0), QELI_CLIENT_PLATFORM_REJECTED); /* start first */
  EXPECT_RC(qeli_client_start(h), QELI_CLIENT_OK);
  EXPECT_RC(qeli_client_start(h), QELI_CLIENT_INVALID_STATE);

  for (int round = 0; round < (second_start ? 2 : 1); ++round) {
    struct seen s;
    memset(&s, 0, sizeof s);
    struct runner r;
    run_async(&r, h);
    if (failing) {
      CHECK(pump_until(h, QELI_CLIENT_FAILED, 30000, &pol, &s), "never FAILED");
      CHECK(s.errors == 1, "%d error events", s.errors);
      EXPECT_RC(run_join(&r, 10000), QELI_CLIENT_PLATFORM_REJECTED);
      CHECK(state_of(h) == QELI_CLIENT_FAILED, "state after a refusal");
      /* The ERROR is -10 with the app's reason verbatim (0.7.16). */
      CHECK(s.error_code == QELI_CLIENT_PLATFORM_REJECTED, "error code %d", s.error_code);
      if (pol.protect < 0)
        CHECK(s.protects >= 1 && !strcmp(s.error, "test refuses"), "%s", s.error);
      if (pol.identity < 0)
        CHECK(s.identities == 1 && !strcmp(s.error, "unknown key"), "%s", s.error);
      if (pol.refuse_plan) CHECK(!strcmp(s.error, "routes not allowed"), "%s", s.error);
      EXPECT_RC(qeli_client_free(h), QELI_CLIENT_OK);
      printf("lifecycle: refused as asked: %s\n", s.error);
      return 0;
    }
    CHECK(pump_until(h, QELI_CLIENT_RUNNING, 30000, &pol, &s), "never RUNNING (%s)", s.error);
    const uint32_t path[] = {QELI_CLIENT_CONNECTING, QELI_CLIENT_AWAITING_NETWORK,
                             QELI_CLIENT_RUNNING};
    CHECK(saw_states(&s, path + (round == 0 ? 0 : 0), 3), "states");
    if (pol.protect) CHECK(s.protects >= 1, "no protect request");
    if (pol.identity) CHECK(s.identities == 1, "%d identity requests", s.identities);
    const uint64_t gen = s.generation;
    if (pol.tun_dev) {
      sh("ping -c 3 -W 2 -i 0.3 %s >/dev/null", s.gateway);
      printf("lifecycle: ping through the handed-over TUN fd ok\n");
      /* Packet calls are for packet mode only. */
      size_t acc = 0;
      uint32_t l = 28;
      uint8_t b[28] = {0};
      EXPECT_RC(qeli_client_tun_push(h, gen, b, 28, &l, 1, &acc), QELI_CLIENT_INVALID_STATE);
    } else {
      /* A new identifier each round, and nothing left from the round before. */
      g_echo_id = (uint16_t)(0x1234 + round);
      if (round > 0) printf("lifecycle: %d packets from before the restart\n", drain(h, gen, 300));
      int replies = ping_batch(h, gen, &s, 5, 84, 1, 0);
      CHECK(replies >= 3, "%d of 5 pings answered", replies);
      printf("lifecycle: %d/5 pings through push/pull\n", replies);
      if (pol.ipv6) {
        replies = ping_batch(h, gen, &s, 5, 104, 50, 1);
        CHECK(replies >= 3, "%d of 5 IPv6 pings answered", replies);
        printf("lifecycle: %d/5 IPv6 pings %s -> %s through push/pull\n", replies, s.address6,
               s.gateway6);
      }
      /* Misuse on a running generation. */
      uint8_t pkt[1500];
      uint32_t len = echo(pkt, 84, &s, 99);
      size_t acc = 0;
      EXPECT_RC(qeli_client_tun_push(h, gen + 1, pkt, len, &len, 1, &acc), QELI_CLIENT_STALE_PLAN);
      EXPECT_RC(qeli_client_tun_push(h, gen, pkt, len + 1, &len, 1, &acc),
                QELI_CLIENT_INVALID_ARGUMENT);
      /* 0.7.16 takes packets up to 65535 bytes: one over the MTU is dropped alone and
       * counted, never an error; 65536 is. */
      static uint8_t jumbo[65536];
      qeli_client_stats_t before = QELI_CLIENT_STATS_INIT, after = QELI_CLIENT_STATS_INIT;
      EXPECT_RC(qeli_client_stats(h, &before), QELI_CLIENT_OK);
      uint32_t sizes[2] = {65535, len};
      static uint8_t two[65535 + 1500];
      memcpy(two + 65535, pkt, len);
      EXPECT_RC(qeli_client_tun_push(h, gen, two, 65535 + len, sizes, 2, &acc), QELI_CLIENT_OK);
      CHECK(acc == 2, "accepted %zu", acc);
      EXPECT_RC(qeli_client_stats(h, &after), QELI_CLIENT_OK);
      CHECK(after.udp_internal_drops == before.udp_internal_drops + 1, "drops %llu -> %llu",
            (unsigned long long)before.udp_internal_drops,
            (unsigned long long)after.udp_internal_drops);
      CHECK(pull_replies(h, gen, 2000, 1) == 1, "the packet after the jumbo one was lost");
      uint32_t big = 65536;
      EXPECT_RC(qeli_client_tun_push(h, gen, jumbo, big, &big, 1, &acc),
                QELI_CLIENT_INVALID_ARGUMENT);
      EXPECT_RC(qeli_client_tun_push(h, gen, pkt, len, &len, 65, &acc),
                QELI_CLIENT_INVALID_ARGUMENT);
      EXPECT_RC(qeli_client_tun_push(h, gen, pkt, len, &len, 1, NULL),
                QELI_CLIENT_INVALID_ARGUMENT);
      /* A reply too big for the buffer stays queued. */
      EXPECT_RC(qeli_client_tun_push(h, gen, pkt, len, &len, 1, &acc), QELI_CLIENT_OK);
      size_t packets = 0, bytes = 0;
      uint32_t lens[4];
      int32_t rc = QELI_CLIENT_NO_EVENT;
      for (int i = 0; i < 300 && rc == QELI_CLIENT_NO_EVENT; ++i, sleep_ms(10))
        rc = qeli_client_tun_pull(h, gen, pkt, 10, lens, 4, &packets, &bytes);
      CHECK(rc == QELI_CLIENT_BUFFER_TOO_SMALL && bytes == 84 && packets == 0, "rc %d bytes %zu",
            rc, bytes);
      CHECK(pull_replies(h, gen, 1000, 1) == 1, "the too-big reply was lost");
      if (bulk > 0) {
        replies = ping_batch(h, gen, &s, bulk, 1028, 1000, 0);
        CHECK(replies >= bulk / 2, "bulk: %d of %d answered", replies, bulk);
        printf("lifecycle: bulk %d/%d pings of 1028 bytes\n", replies, bulk);
      }
    }
    qeli_client_stats_t st = QELI_CLIENT_STATS_INIT;
    EXPECT_RC(qeli_client_stats(h, &st), QELI_CLIENT_OK);
    CHECK(st.state == QELI_CLIENT_RUNNING && st.tx_packets >= 3 && st.rx_packets >= 3 &&
              st.tx_bytes >= 84 * 3 && st.uptime_ms > 0 && st.reconnects == 0,
          "stats: state %u tx %llu rx %llu uptime %llu reconnects %llu", st.state,
          (unsigned long long)st.tx_packets, (unsigned long long)st.rx_packets,
          (unsigned long long)st.uptime_ms, (unsigned long long)st.reconnects);
    CHECK(st.struct_size == sizeof st && st.abi_version == QELI_CLIENT_ABI_VERSION, "stats hdr");
    /* The UDP socket's own figures: its receive buffer as the kernel granted it (a UDP
     * session always has one); a TCP session has none of them. */
    if (udp) {
      CHECK(st.udp_recv_buffer_bytes > 0 && st.udp_buffer_grows <= 2,
            "udp stats: recv buffer %llu, grows %llu, kernel drops %llu",
            (unsigned long long)st.udp_recv_buffer_bytes, (unsigned long long)st.udp_buffer_grows,
            (unsigned long long)st.udp_kernel_drops);
      printf("lifecycle: udp receive buffer %llu bytes, %llu kernel drops, %llu grows\n",
             (unsigned long long)st.udp_recv_buffer_bytes, (unsigned long long)st.udp_kernel_drops,
             (unsigned long long)st.udp_buffer_grows);
    } else {
      CHECK(st.udp_recv_buffer_bytes == 0 && st.udp_kernel_drops == 0 && st.udp_buffer_grows == 0,
            "tcp has udp stats: %llu %llu %llu", (unsigned long long)st.udp_recv_buffer_bytes,
            (unsigned long long)st.udp_kernel_drops, (unsigned long long)st.udp_buffer_grows);
    }

    if (await_drop) {
      /* One connection per run (0.7.16): the session's end is the run's, never a reconnect. */
      const size_t before = s.nstates;
      printf("lifecycle: awaiting a drop\n");
      CHECK(pump_until(h, QELI_CLIENT_FAILED, 60000, &pol, &s), "never FAILED after the drop");
      CHECK(s.nstates == before + 1, "states between RUNNING and FAILED: %zu",
            s.nstates - before - 1);
      CHECK(s.errors == 1 && s.error_code == QELI_CLIENT_PLATFORM_REJECTED && s.error[0],
            "%d errors, code %d: %s", s.errors, s.error_code, s.error);
      EXPECT_RC(run_join(&r, 10000), QELI_CLIENT_PLATFORM_REJECTED);
      CHECK(state_of(h) == QELI_CLIENT_FAILED, "state after the drop");
      EXPECT_RC(qeli_client_free(h), QELI_CLIENT_OK);
      printf("lifecycle: the session ended: %s\n", s.error);
      return 0;
    }
    struct pusher p = {h, gen, &s, 0, 0};
    pthread_t pt;
    if (stop_in_transfer) CHECK(pthread_create(&pt, NULL, push_main, &p) == 0, "pusher");
    if (stop_in_transfer) sleep_ms(300);
    EXPECT_RC(qeli_client_stop(h), QELI_CLIENT_OK);
    CHECK(pump_until(h, QELI_CLIENT_STOPPED, 10000, &pol, &s), "never STOPPED");
    const uint32_t end_path[] = {QELI_CLIENT_STOPPING, QELI_CLIENT_STOPPED};
    CHECK(saw_states(&s, end_path, 2), "stop states");
    EXPECT_RC(run_join(&r, 10000), QELI_CLIENT_OK);
    if (stop_in_transfer) {
      atomic_store(&p.stop, 1);
      pthread_join(pt, NULL);
      printf("lifecycle: stopped during a transfer (%d pushes)\n", p.pushes);
    }
    EXPECT_RC(qeli_client_stop(h), QELI_CLIENT_OK); /* idempotent */
    CHECK(state_of(h) == QELI_CLIENT_STOPPED, "not STOPPED");
    if (round == 0 && second_start) {
      EXPECT_RC(qeli_client_start(h), QELI_CLIENT_OK);
      printf("lifecycle: second start\n");
    }
  }
  if (pol.tun_fd >= 0) close(pol.tun_fd);
  EXPECT_RC(qeli_client_free(h), QELI_CLIENT_OK);
  EXPECT_RC(qeli_client_free(h), QELI_CLIENT_INVALID_HANDLE);
  printf("lifecycle ok\n");
  return 0;
}

/* 0.7.16 waits 45 s for the plan's answer, then fails the run; a late answer is out of turn. */
static int plan_timeout(void) {
  struct policy pol = {0, 0, 0, NULL, -1, 0, 1};
  struct seen s;
  memset(&s, 0, sizeof s);
  uint64_t h =
      new_handle(QELI_PLATFORM_ROUTES | QELI_PLATFORM_DNS | QELI_PLATFORM_TUN_PACKET_BATCH);
  EXPECT_RC(qeli_client_start(h), QELI_CLIENT_OK);
  struct runner r;
  run_async(&r, h);
  CHECK(pump_until(h, QELI_CLIENT_AWAITING_NETWORK, 30000, &pol, &s), "no plan");
  const uint64_t t0 = now_ms();
  CHECK(pump_until(h, QELI_CLIENT_FAILED, 60000, &pol, &s), "never FAILED");
  const uint64_t waited = now_ms() - t0;
  CHECK(waited >= 44000, "failed after %llu ms", (unsigned long long)waited);
  CHECK(s.errors == 1 && strstr(s.error, "did not acknowledge NetworkPlan") &&
            strstr(s.error, "within 45s"),
        "%s", s.error);
  EXPECT_RC(run_join(&r, 10000), QELI_CLIENT_PLATFORM_REJECTED);
  EXPECT_RC(qeli_client_network_plan_result(h, s.generation, 0, NULL, 0),
            QELI_CLIENT_INVALID_STATE);
  EXPECT_RC(qeli_client_free(h), QELI_CLIENT_OK);
  printf("plan timeout: FAILED after %llu ms: %s\n", (unsigned long long)waited, s.error);
  return 0;
}

static int stop_during_connect(void) {
  uint64_t h = new_handle(QELI_PLATFORM_TUN_PACKET_BATCH);
  EXPECT_RC(qeli_client_start(h), QELI_CLIENT_OK);
  struct runner r;
  run_async(&r, h);
  sleep_ms(700);
  CHECK(state_of(h) == QELI_CLIENT_CONNECTING, "state %u", state_of(h));
  const uint64_t t0 = now_ms();
  EXPECT_RC(qeli_client_stop(h), QELI_CLIENT_OK);
  EXPECT_RC(run_join(&r, 5000), QELI_CLIENT_OK);
  CHECK(state_of(h) == QELI_CLIENT_STOPPED, "state %u", state_of(h));
  printf("stop during connect: run returned in %llu ms\n", (unsigned long long)(now_ms() - t0));
  EXPECT_RC(qeli_client_free(h), QELI_CLIENT_OK);
  return 0;
}

static int free_queued(void) {
  uint64_t h =
      new_handle(QELI_PLATFORM_ROUTES | QELI_PLATFORM_DNS | QELI_PLATFORM_TUN_PACKET_BATCH);
  EXPECT_RC(qeli_client_start(h), QELI_CLIENT_OK);
  struct runner r;
  run_async(&r, h);
  /* Nobody polls: the plan waits in the queue and run blocks on its answer. */
  const uint64_t end = now_ms() + 20000;
  while (state_of(h) != QELI_CLIENT_AWAITING_NETWORK && now_ms() < end) sleep_ms(20);
  CHECK(state_of(h) == QELI_CLIENT_AWAITING_NETWORK, "never AWAITING_NETWORK");
  EXPECT_RC(qeli_client_free(h), QELI_CLIENT_OK);
  run_join(&r, 5000); /* returns, whatever its code */
  uint32_t st;
  EXPECT_RC(qeli_client_state(h, &st), QELI_CLIENT_INVALID_HANDLE);
  EXPECT_RC(qeli_client_run(h, NULL, 0), QELI_CLIENT_INVALID_HANDLE);
  printf("free with events queued ok\n");
  return 0;
}

static int misuse(void) {
  CHECK(QELI_CLIENT_ABI_IS_COMPATIBLE(qeli_client_abi_version()), "abi %#x",
        qeli_client_abi_version());
  const uint64_t core = qeli_client_core_capabilities();
  CHECK((core & QELI_CORE_NATIVE_DATA_PLANE) && (core & QELI_CORE_TUN_PACKET_IO) &&
            (core & QELI_CORE_TUN_FD_OWNERSHIP) && (core & QELI_CORE_HANDSHAKE_NETWORK_INPUT) &&
            !(core & QELI_CORE_WINTUN_IO),
        "core caps %#llx", (unsigned long long)core);
  const uint8_t* cfg = (const uint8_t*)profile;
  uint64_t h = 0, lat = 5;
  EXPECT_RC(qeli_client_new(NULL, 10, 0, 0, &h), QELI_CLIENT_INVALID_ARGUMENT);
  /* 0.7.16: an empty, non-UTF-8 or over-256-KiB profile is INVALID_CONFIG. */
  EXPECT_RC(qeli_client_new(cfg, 0, 0, 0, &h), QELI_CLIENT_INVALID_CONFIG);
  EXPECT_RC(qeli_client_new(NULL, 0, 0, 0, &h), QELI_CLIENT_INVALID_CONFIG);
  EXPECT_RC(qeli_client_new((const uint8_t*)"[qeli]\xff\n", 8, 0, 0, &h),
            QELI_CLIENT_INVALID_CONFIG);
  EXPECT_RC(qeli_client_new(cfg, profile_len, 0, 0, NULL), QELI_CLIENT_INVALID_ARGUMENT);
  EXPECT_RC(qeli_client_new(cfg, profile_len, 0, 1, &h), QELI_CLIENT_INVALID_ARGUMENT);
  EXPECT_RC(qeli_client_new(cfg, profile_len, 0, 257, &h), QELI_CLIENT_INVALID_ARGUMENT);
  EXPECT_RC(qeli_client_new(cfg, profile_len, QELI_PLATFORM_TUN_WINTUN, 0, &h),
            QELI_CLIENT_UNSUPPORTED);
  EXPECT_RC(qeli_client_new((const uint8_t*)"not a config\x01", 13, 0, 0, &h),
            QELI_CLIENT_INVALID_CONFIG);
  EXPECT_RC(qeli_client_new((const uint8_t*)"qeli://nope", 11, 0, 0, &h),
            QELI_CLIENT_INVALID_CONFIG);
  EXPECT_RC(qeli_client_new((const uint8_t*)"[qeli]\nbogus_key = 1\n", 21, 0, 0, &h),
            QELI_CLIENT_INVALID_CONFIG);
  static uint8_t huge[70000];
  memset(huge, 'a', sizeof huge);
  EXPECT_RC(qeli_client_new(huge, sizeof huge, 0, 0, &h), QELI_CLIENT_INVALID_CONFIG);
  static uint8_t huger[256 * 1024 + 1];
  memset(huger, '#', sizeof huger); /* comments: a profile, were it not too large */
  EXPECT_RC(qeli_client_new(huger, sizeof huger, 0, 0, &h), QELI_CLIENT_INVALID_CONFIG);
  EXPECT_RC(qeli_client_udp_probe(huger, sizeof huger, 1000, &lat), QELI_CLIENT_INVALID_ARGUMENT);
  CHECK(h == 0, "a failed new left a handle");

  /* Handles that are not. */
  uint32_t st;
  qeli_client_event_t ev = QELI_CLIENT_EVENT_INIT;
  qeli_client_stats_t stats = QELI_CLIENT_STATS_INIT;
  size_t n;
  const uint64_t bogus[] = {0, 1, 0x100000001ull, 0xdeadbeefcafeull, ~0ull};
  for (size_t i = 0; i < sizeof bogus / sizeof *bogus; ++i) {
    const uint64_t b = bogus[i];
    EXPECT_RC(qeli_client_start(b), QELI_CLIENT_INVALID_HANDLE);
    EXPECT_RC(qeli_client_stop(b), QELI_CLIENT_INVALID_HANDLE);
    EXPECT_RC(qeli_client_state(b, &st), QELI_CLIENT_INVALID_HANDLE);
    EXPECT_RC(qeli_client_stats(b, &stats), QELI_CLIENT_INVALID_HANDLE);
    EXPECT_RC(qeli_client_poll_event(b, &ev, NULL, 0, &n), QELI_CLIENT_INVALID_HANDLE);
    EXPECT_RC(qeli_client_run(b, NULL, 0), QELI_CLIENT_INVALID_HANDLE);
    EXPECT_RC(qeli_client_free(b), QELI_CLIENT_INVALID_HANDLE);
  }

  h = new_handle(QELI_PLATFORM_TUN_PACKET_BATCH);
  CHECK(state_of(h) == QELI_CLIENT_CREATED, "state");
  EXPECT_RC(qeli_client_state(h, NULL), QELI_CLIENT_INVALID_ARGUMENT);
  EXPECT_RC(qeli_client_poll_event(h, NULL, NULL, 0, &n), QELI_CLIENT_INVALID_ARGUMENT);
  EXPECT_RC(qeli_client_poll_event(h, &ev, NULL, 0, NULL), QELI_CLIENT_INVALID_ARGUMENT);
  /* new queued STATE_CHANGED(CREATED) as sequence 1, as 0.7.16 does; nothing else. A NULL
   * payload buffer is refused only for an event that has a payload. */
  EXPECT_RC(qeli_client_poll_event(h, &ev, NULL, 5, &n), QELI_CLIENT_OK);
  CHECK(ev.kind == QELI_CLIENT_STATE_CHANGED && ev.state == QELI_CLIENT_CREATED &&
            ev.sequence == 1 && n == 0,
        "first event: kind %u state %u seq %llu", ev.kind, ev.state,
        (unsigned long long)ev.sequence);
  EXPECT_RC(qeli_client_poll_event(h, &ev, NULL, 0, &n), QELI_CLIENT_NO_EVENT);
  /* The device id: CREATED or STOPPED only; 16 bytes, not all zero. */
  uint8_t id[16] = {0};
  EXPECT_RC(qeli_client_set_device_id(h, id, 16), QELI_CLIENT_INVALID_ARGUMENT); /* all zero */
  id[3] = 7;
  EXPECT_RC(qeli_client_set_device_id(h, id, 15), QELI_CLIENT_INVALID_ARGUMENT);
  EXPECT_RC(qeli_client_set_device_id(h, NULL, 16), QELI_CLIENT_INVALID_ARGUMENT);
  EXPECT_RC(qeli_client_set_device_id(h, id, 16), QELI_CLIENT_OK);
  EXPECT_RC(qeli_client_start(h), QELI_CLIENT_OK);
  EXPECT_RC(qeli_client_set_device_id(h, id, 16), QELI_CLIENT_INVALID_STATE);
  /* A short struct consumes nothing. */
  qeli_client_event_t small = QELI_CLIENT_EVENT_INIT;
  small.struct_size = 40;
  EXPECT_RC(qeli_client_poll_event(h, &small, NULL, 0, &n), QELI_CLIENT_INVALID_ARGUMENT);
  /* A larger caller struct (a newer header): nothing past 48 bytes is written. */
  struct {
    qeli_client_event_t ev;
    uint8_t tail[16];
  } big;
  memset(&big, 0xab, sizeof big);
  big.ev.struct_size = sizeof big;
  EXPECT_RC(qeli_client_poll_event(h, &big.ev, NULL, 0, &n), QELI_CLIENT_OK);
  CHECK(big.ev.struct_size == sizeof big && big.ev.kind == QELI_CLIENT_STATE_CHANGED &&
            big.ev.state == QELI_CLIENT_CONNECTING && big.ev.sequence == 2 && n == 0,
        "event kind %u state %u seq %llu", big.ev.kind, big.ev.state,
        (unsigned long long)big.ev.sequence);
  for (size_t i = 0; i < sizeof big.tail; ++i) CHECK(big.tail[i] == 0xab, "wrote past V1");
  /* Stats: a V1 struct gets 64 bytes, no more. */
  struct {
    qeli_client_stats_t s;
  } v1;
  memset(&v1, 0xcd, sizeof v1);
  v1.s.struct_size = QELI_CLIENT_STATS_V1_SIZE;
  EXPECT_RC(qeli_client_stats(h, &v1.s), QELI_CLIENT_OK);
  CHECK(v1.s.state == QELI_CLIENT_CONNECTING && v1.s.udp_kernel_drops == 0xcdcdcdcdcdcdcdcdull,
        "V1 stats");
  stats.struct_size = 32;
  EXPECT_RC(qeli_client_stats(h, &stats), QELI_CLIENT_INVALID_ARGUMENT);
  EXPECT_RC(qeli_client_stats(h, NULL), QELI_CLIENT_INVALID_ARGUMENT);

  /* Run inputs. */
  EXPECT_RC(qeli_client_run(h, (const uint8_t*)"not json", 8), QELI_CLIENT_INVALID_ARGUMENT);
  EXPECT_RC(qeli_client_run(h, (const uint8_t*)"{\"x\":1}", 7), QELI_CLIENT_INVALID_ARGUMENT);
  /* A value 0.7.16 refuses (not an address) is PLATFORM_REJECTED, no event; a shape it
   * cannot read is INVALID_ARGUMENT. */
  EXPECT_RC(qeli_client_run(h, (const uint8_t*)"{\"carrier_addresses\":[\"vpn\"]}", 29),
            QELI_CLIENT_PLATFORM_REJECTED);
  EXPECT_RC(qeli_client_run(h, (const uint8_t*)"{\"carrier_addresses\":[1]}", 25),
            QELI_CLIENT_INVALID_ARGUMENT);
  EXPECT_RC(qeli_client_run(h, (const uint8_t*)"{\"fallback_dns_servers\":\"1.1.1.1\"}", 34),
            QELI_CLIENT_INVALID_ARGUMENT);
  EXPECT_RC(qeli_client_run(h, NULL, 5), QELI_CLIENT_INVALID_ARGUMENT);
  EXPECT_RC(qeli_client_run(h, huge, sizeof huge), QELI_CLIENT_INVALID_ARGUMENT);

  /* Inputs and answers out of turn. */
  EXPECT_RC(qeli_client_set_tun_fd(h, 1, 0), QELI_CLIENT_UNSUPPORTED); /* no TUN_FD declared */
  EXPECT_RC(qeli_client_network_plan_result(h, 1, 0, NULL, 0), QELI_CLIENT_INVALID_STATE);
  EXPECT_RC(qeli_client_socket_protect_result(h, 1, 0, NULL, 0), QELI_CLIENT_STALE_REQUEST);
  EXPECT_RC(qeli_client_server_identity_result(h, 1, 0, NULL, 0), QELI_CLIENT_STALE_REQUEST);
  EXPECT_RC(qeli_client_network_plan_result(h, 1, 0, NULL, 9), QELI_CLIENT_INVALID_ARGUMENT);
  /* A reason of any length is taken (cut to 512 characters); it must be UTF-8. */
  EXPECT_RC(qeli_client_network_plan_result(h, 1, 1, huge, sizeof huge), QELI_CLIENT_INVALID_STATE);
  EXPECT_RC(qeli_client_network_plan_result(h, 1, 1, (const uint8_t*)"\xff", 1),
            QELI_CLIENT_INVALID_ARGUMENT);
  EXPECT_RC(qeli_client_socket_protect_result(h, 1, 1, (const uint8_t*)"\xc3", 1),
            QELI_CLIENT_INVALID_ARGUMENT);
  uint8_t pkt[64] = {0x45};
  uint32_t len = 64;
  size_t acc = 9;
  EXPECT_RC(qeli_client_tun_push(h, 1, pkt, 64, &len, 1, &acc), QELI_CLIENT_INVALID_STATE);
  CHECK(acc == 0, "accepted %zu", acc);
  size_t pk, by;
  EXPECT_RC(qeli_client_tun_pull(h, 1, pkt, 64, &len, 1, &pk, &by), QELI_CLIENT_INVALID_STATE);
  EXPECT_RC(qeli_client_tun_pull(h, 1, NULL, 64, &len, 1, &pk, &by), QELI_CLIENT_INVALID_ARGUMENT);
  uint64_t gen = 5;
  /* ABI 1.5's seam (an app's own handshake): an input without the AUTH OK is refused. */
  EXPECT_RC(qeli_client_publish_handshake_network(h, (const uint8_t*)"{}", 2, &gen),
            QELI_CLIENT_INVALID_ARGUMENT);
  CHECK(gen == 0, "generation");
  EXPECT_RC(qeli_client_publish_handshake_network(h, NULL, 2, &gen), QELI_CLIENT_INVALID_ARGUMENT);
  EXPECT_RC(qeli_client_set_wintun_adapter(h, 1, (const uint8_t*)"x", 1), QELI_CLIENT_UNSUPPORTED);
  /* The probe: a TCP profile is no UDP profile; bounds on its arguments. */
  EXPECT_RC(qeli_client_udp_probe(cfg, profile_len, 1000, &lat), QELI_CLIENT_INVALID_CONFIG);
  EXPECT_RC(qeli_client_udp_probe(cfg, profile_len, 99, &lat), QELI_CLIENT_INVALID_ARGUMENT);
  EXPECT_RC(qeli_client_udp_probe(cfg, profile_len, 5001, &lat), QELI_CLIENT_INVALID_ARGUMENT);
  EXPECT_RC(qeli_client_udp_probe(cfg, profile_len, 1000, NULL), QELI_CLIENT_INVALID_ARGUMENT);
  EXPECT_RC(qeli_client_udp_probe(NULL, 5, 1000, &lat), QELI_CLIENT_INVALID_ARGUMENT);

  /* stop without a run: STOPPING then STOPPED at once; again is fine; start again. */
  EXPECT_RC(qeli_client_stop(h), QELI_CLIENT_OK);
  CHECK(state_of(h) == QELI_CLIENT_STOPPED, "state");
  EXPECT_RC(qeli_client_stop(h), QELI_CLIENT_OK);
  uint32_t states[4];
  int k = 0;
  char payload[16];
  while (qeli_client_poll_event(h, &ev, (uint8_t*)payload, sizeof payload, &n) == QELI_CLIENT_OK)
    if (k < 4) states[k++] = ev.state;
  CHECK(k == 2 && states[0] == QELI_CLIENT_STOPPING && states[1] == QELI_CLIENT_STOPPED,
        "%d stop events", k);
  EXPECT_RC(qeli_client_free(h), QELI_CLIENT_OK);
  EXPECT_RC(qeli_client_free(h), QELI_CLIENT_INVALID_HANDLE);
  EXPECT_RC(qeli_client_start(h), QELI_CLIENT_INVALID_HANDLE);

  /* The smallest queue (0.7.16): a start or a stop that finds no room for its events is
   * EVENT_QUEUE_FULL and changes nothing; a poll makes room. */
  EXPECT_RC(qeli_client_new(cfg, profile_len, QELI_PLATFORM_TUN_PACKET_BATCH, 2, &h),
            QELI_CLIENT_OK);
  EXPECT_RC(qeli_client_start(h), QELI_CLIENT_OK); /* [CREATED, CONNECTING] */
  EXPECT_RC(qeli_client_stop(h), QELI_CLIENT_EVENT_QUEUE_FULL);
  CHECK(state_of(h) == QELI_CLIENT_CONNECTING, "a refused stop changed the state");
  EXPECT_RC(qeli_client_poll_event(h, &ev, NULL, 0, &n), QELI_CLIENT_OK);
  EXPECT_RC(qeli_client_stop(h), QELI_CLIENT_EVENT_QUEUE_FULL); /* STOPPING + STOPPED: 2 */
  EXPECT_RC(qeli_client_poll_event(h, &ev, NULL, 0, &n), QELI_CLIENT_OK);
  EXPECT_RC(qeli_client_stop(h), QELI_CLIENT_OK);
  EXPECT_RC(qeli_client_start(h), QELI_CLIENT_EVENT_QUEUE_FULL);
  k = 0;
  while (qeli_client_poll_event(h, &ev, NULL, 0, &n) == QELI_CLIENT_OK) states[k++] = ev.state;
  CHECK(k == 2 && states[0] == QELI_CLIENT_STOPPING && states[1] == QELI_CLIENT_STOPPED,
        "%d events, last %u", k, states[1]);
  EXPECT_RC(qeli_client_start(h), QELI_CLIENT_OK);
  EXPECT_RC(qeli_client_free(h), QELI_CLIENT_OK);
  printf("misuse ok\n");
  return 0;
}

/* Threads: each makes and frees handles of its own; all hammer one shared handle, which one
 * of them frees half-way. Every result must be a documented code. */
static uint64_t shared_handle;
static void* thread_main(void* arg) {
  const int me = (int)(intptr_t)arg;
  for (int i = 0; i < 200; ++i) {
    uint64_t h = 0;
    EXPECT_RC(qeli_client_new((const uint8_t*)profile, profile_len, QELI_PLATFORM_TUN_PACKET_BATCH,
                              0, &h),
              QELI_CLIENT_OK);
    EXPECT_RC(qeli_client_start(h), QELI_CLIENT_OK);
    qeli_client_event_t ev = QELI_CLIENT_EVENT_INIT;
    size_t n;
    EXPECT_RC(qeli_client_poll_event(h, &ev, NULL, 0, &n), QELI_CLIENT_OK);
    EXPECT_RC(qeli_client_stop(h), QELI_CLIENT_OK);
    EXPECT_RC(qeli_client_free(h), QELI_CLIENT_OK);
    uint32_t st;
    int32_t rc = qeli_client_state(shared_handle, &st);
    CHECK(rc == QELI_CLIENT_OK || rc == QELI_CLIENT_INVALID_HANDLE, "shared state %d", rc);
    rc = qeli_client_poll_event(shared_handle, &ev, NULL, 0, &n);
    CHECK(rc == QELI_CLIENT_OK || rc == QELI_CLIENT_NO_EVENT || rc == QELI_CLIENT_INVALID_HANDLE ||
              rc == QELI_CLIENT_BUFFER_TOO_SMALL,
          "shared poll %d", rc);
    rc = qeli_client_stop(shared_handle);
    CHECK(rc == QELI_CLIENT_OK || rc == QELI_CLIENT_INVALID_HANDLE ||
              rc == QELI_CLIENT_EVENT_QUEUE_FULL,
          "shared stop %d", rc);
    rc = qeli_client_start(shared_handle);
    CHECK(rc == QELI_CLIENT_OK || rc == QELI_CLIENT_INVALID_STATE ||
              rc == QELI_CLIENT_EVENT_QUEUE_FULL || rc == QELI_CLIENT_INVALID_HANDLE,
          "shared start %d", rc);
    if (me == 0 && i == 100) EXPECT_RC(qeli_client_free(shared_handle), QELI_CLIENT_OK);
  }
  return NULL;
}
static int threads(void) {
  shared_handle = new_handle(QELI_PLATFORM_TUN_PACKET_BATCH);
  pthread_t t[6];
  for (int i = 0; i < 6; ++i)
    CHECK(pthread_create(&t[i], NULL, thread_main, (void*)(intptr_t)i) == 0, "thread");
  for (int i = 0; i < 6; ++i) pthread_join(t[i], NULL);
  uint32_t st;
  EXPECT_RC(qeli_client_state(shared_handle, &st), QELI_CLIENT_INVALID_HANDLE);
  printf("threads ok\n");
  return 0;
}

static int udp_probe(const char* expect) {
  uint64_t latency = 99;
  const uint64_t t0 = now_ms();
  const int32_t rc = qeli_client_udp_probe((const uint8_t*)profile, profile_len, 300, &latency);
  if (!strcmp(expect, "answer")) {
    CHECK(rc == QELI_CLIENT_OK && latency < 300, "probe %d, latency %llu", rc,
          (unsigned long long)latency);
  } else {
    CHECK(rc == QELI_CLIENT_PLATFORM_REJECTED && latency == 0, "probe %d", rc);
    /* 0.7.16: 2 attempts of the timeout, every address at once. */
    const uint64_t took = now_ms() - t0;
    CHECK(took >= 550 && took < 1500, "gave up after %llu ms (2 x 300 expected)",
          (unsigned long long)took);
  }
  printf("udp probe: %s (%d, %llu ms)\n", expect, rc, (unsigned long long)latency);
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: abi_harness COMMAND PROFILE [options]\n");
    return 2;
  }
  profile = argv[2];
  profile_len = strlen(profile);
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (!strcmp(argv[1], "misuse")) return misuse();
  if (!strcmp(argv[1], "lifecycle")) return lifecycle(argc - 3, argv + 3);
  if (!strcmp(argv[1], "stop-during-connect")) return stop_during_connect();
  if (!strcmp(argv[1], "plan-timeout")) return plan_timeout();
  if (!strcmp(argv[1], "free-queued")) return free_queued();
  if (!strcmp(argv[1], "threads")) return threads();
  if (!strcmp(argv[1], "udp-probe") && argc > 3) return udp_probe(argv[3]);
  fprintf(stderr, "unknown command %s\n", argv[1]);
  return 2;
}
