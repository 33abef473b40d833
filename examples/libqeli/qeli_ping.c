/*
 * qeli_ping: the smallest app of libqeli, using nothing but <qeli_transport_core.h>.
 * It connects with a qeli:// link (or a client config file), accepts the network plan
 * without installing anything (it has no TUN: packets go by qeli_client_tun_push/pull),
 * pings the server's tunnel address COUNT times with ICMP echo requests it builds itself,
 * and prints the replies and the handle's counters.
 *
 *   qeli_ping LINK-OR-FILE [COUNT]      exit 0 when at least one reply came back
 *
 * Threads: qeli_client_run blocks, so it runs on a thread of its own while main polls
 * events and moves packets (the ABI's intended split).
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep, strdup, clock_gettime under -std=c11 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <qeli_transport_core.h>

static uint64_t handle;

static void* runner(void* arg) {
  (void)arg;
  int32_t rc = qeli_client_run(handle, NULL, 0);
  if (rc != QELI_CLIENT_OK) fprintf(stderr, "qeli_client_run: %d\n", rc);
  return NULL;
}

static uint64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* Reads "key":"a.b.c.d" out of the plan JSON (enough for this example). */
static int json_ipv4(const char* json, const char* key, uint8_t out[4]) {
  char pattern[64];
  snprintf(pattern, sizeof pattern, "\"%s\":\"", key);
  const char* p = strstr(json, pattern);
  unsigned a, b, c, d;
  if (p == NULL || sscanf(p + strlen(pattern), "%u.%u.%u.%u", &a, &b, &c, &d) != 4) return -1;
  out[0] = (uint8_t)a, out[1] = (uint8_t)b, out[2] = (uint8_t)c, out[3] = (uint8_t)d;
  return 0;
}

static uint16_t checksum(const uint8_t* p, size_t n) {
  uint32_t sum = 0;
  for (size_t i = 0; i + 1 < n; i += 2) sum += (uint32_t)(p[i] << 8 | p[i + 1]);
  if (n & 1) sum += (uint32_t)(p[n - 1] << 8);
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return (uint16_t)~sum;
}

/* An IPv4 ICMP echo request of `len` bytes (≥ 28) from src to dst. */
static size_t echo_request(uint8_t* pkt, size_t len, const uint8_t src[4], const uint8_t dst[4],
                           uint16_t seq) {
  memset(pkt, 0, len);
  pkt[0] = 0x45;
  pkt[2] = (uint8_t)(len >> 8), pkt[3] = (uint8_t)len;
  pkt[8] = 64; /* TTL */
  pkt[9] = 1;  /* ICMP */
  memcpy(pkt + 12, src, 4);
  memcpy(pkt + 16, dst, 4);
  uint16_t c = checksum(pkt, 20);
  pkt[10] = (uint8_t)(c >> 8), pkt[11] = (uint8_t)c;
  uint8_t* icmp = pkt + 20;
  icmp[0] = 8;                    /* echo request */
  icmp[4] = 0x51, icmp[5] = 0x45; /* identifier */
  icmp[6] = (uint8_t)(seq >> 8), icmp[7] = (uint8_t)seq;
  for (size_t i = 8; i < len - 20; ++i) icmp[i] = (uint8_t)i;
  c = checksum(icmp, len - 20);
  icmp[2] = (uint8_t)(c >> 8), icmp[3] = (uint8_t)c;
  return len;
}

/* The device id the server counts sessions by: an app keeps one per install; this example
 * makes one per run. The core requires one before qeli_client_run (as 0.7.16). */
static int device_id(uint8_t id[16]) {
  FILE* f = fopen("/dev/urandom", "rb");
  const int ok = f != NULL && fread(id, 1, 16, f) == 16;
  if (f != NULL) fclose(f);
  id[0] |= 1; /* never all zero */
  return ok ? 0 : -1;
}

static char* read_profile(const char* arg, size_t* len) {
  if (strncmp(arg, "qeli://", 7) == 0) {
    *len = strlen(arg);
    return strdup(arg);
  }
  FILE* f = fopen(arg, "rb");
  if (f == NULL) return NULL;
  char* buf = malloc(65536);
  *len = buf ? fread(buf, 1, 65536, f) : 0;
  fclose(f);
  return buf;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: qeli_ping LINK-OR-FILE [COUNT]\n");
    return 2;
  }
  const int count = argc > 2 ? atoi(argv[2]) : 5;
  if (!QELI_CLIENT_ABI_IS_COMPATIBLE(qeli_client_abi_version()) ||
      !(qeli_client_core_capabilities() & QELI_CORE_TUN_PACKET_IO)) {
    fprintf(stderr, "libqeli: incompatible ABI %#x\n", qeli_client_abi_version());
    return 1;
  }
  size_t len = 0;
  char* profile = read_profile(argv[1], &len);
  if (profile == NULL) {
    fprintf(stderr, "cannot read %s: %s\n", argv[1], strerror(errno));
    return 1;
  }
  int32_t rc = qeli_client_new(
      (const uint8_t*)profile, len,
      QELI_PLATFORM_ROUTES | QELI_PLATFORM_DNS | QELI_PLATFORM_TUN_PACKET_BATCH, 0, &handle);
  free(profile);
  if (rc != QELI_CLIENT_OK) {
    fprintf(stderr, "qeli_client_new: %d\n", rc);
    return 1;
  }
  uint8_t id[16];
  pthread_t thread;
  if (device_id(id) != 0 || qeli_client_set_device_id(handle, id, sizeof id) != QELI_CLIENT_OK ||
      qeli_client_start(handle) != QELI_CLIENT_OK || pthread_create(&thread, NULL, runner, NULL)) {
    fprintf(stderr, "cannot start\n");
    return 1;
  }

  uint8_t src[4], dst[4];
  uint64_t generation = 0;
  char payload[65536];
  const uint64_t deadline = now_ms() + 20000;
  while (generation == 0 && now_ms() < deadline) {
    qeli_client_event_t ev = QELI_CLIENT_EVENT_INIT;
    size_t n = 0;
    rc = qeli_client_poll_event(handle, &ev, (uint8_t*)payload, sizeof payload - 1, &n);
    if (rc == QELI_CLIENT_NO_EVENT) {
      sleep_ms(10);
      continue;
    }
    if (rc != QELI_CLIENT_OK) break;
    payload[n] = 0;
    if (ev.kind == QELI_CLIENT_ERROR) {
      fprintf(stderr, "error %d: %s\n", ev.error_code, payload);
      break;
    }
    if (ev.kind == QELI_CLIENT_NETWORK_PLAN) {
      if (json_ipv4(payload, "tunnel_address", src) || json_ipv4(payload, "tunnel_gateway", dst)) {
        qeli_client_network_plan_result(handle, ev.plan_generation, -1,
                                        (const uint8_t*)"unreadable plan", 15);
        break;
      }
      printf("plan %llu: %s\n", (unsigned long long)ev.plan_generation, payload);
      if (qeli_client_network_plan_result(handle, ev.plan_generation, 0, NULL, 0) == 0) {
        generation = ev.plan_generation;
      }
    }
  }

  int replies = 0;
  for (int i = 0; generation != 0 && i < count; ++i) {
    uint8_t pkt[84];
    uint32_t plen = (uint32_t)echo_request(pkt, sizeof pkt, src, dst, (uint16_t)(i + 1));
    size_t accepted = 0;
    qeli_client_tun_push(handle, generation, pkt, plen, &plen, 1, &accepted);
    const uint64_t sent = now_ms();
    int got = 0;
    while (!got && now_ms() - sent < 2000) {
      uint8_t in[16384];
      uint32_t lens[64];
      size_t packets = 0, bytes = 0;
      rc = qeli_client_tun_pull(handle, generation, in, sizeof in, lens, 64, &packets, &bytes);
      if (rc != QELI_CLIENT_OK) {
        sleep_ms(2);
        continue;
      }
      size_t off = 0;
      for (size_t k = 0; k < packets; off += lens[k++]) {
        const uint8_t* p = in + off;
        if (lens[k] >= 28 && p[9] == 1 && p[20] == 0 && p[26] == (uint8_t)((i + 1) >> 8) &&
            p[27] == (uint8_t)(i + 1)) {
          printf("reply %d from %u.%u.%u.%u: %llu ms\n", i + 1, p[12], p[13], p[14], p[15],
                 (unsigned long long)(now_ms() - sent));
          got = 1;
        }
      }
    }
    replies += got;
  }

  qeli_client_stats_t st = QELI_CLIENT_STATS_INIT;
  if (qeli_client_stats(handle, &st) == QELI_CLIENT_OK) {
    printf("%d/%d replies; tx %llu packets %llu bytes, rx %llu packets %llu bytes\n", replies,
           count, (unsigned long long)st.tx_packets, (unsigned long long)st.tx_bytes,
           (unsigned long long)st.rx_packets, (unsigned long long)st.rx_bytes);
  }
  qeli_client_stop(handle);
  pthread_join(thread, NULL);
  qeli_client_free(handle);
  return replies > 0 ? 0 : 1;
}
