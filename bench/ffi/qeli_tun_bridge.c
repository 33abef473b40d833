/*
 * qeli_tun_bridge: libqeli's packet mode measured the way an app without a TUN fd uses it
 * (iOS's packetFlow): this program owns a kernel TUN, and moves every packet between it
 * and the core by qeli_client_tun_push / qeli_client_tun_pull — the core never sees the
 * fd. bench/lab/run.sh runs iperf3 through it (systems qeli-libqeli, qeli-udp-libqeli)
 * beside the `qeli client` daemon, which owns its TUN itself.
 *
 *   qeli_tun_bridge LINK TUN-NAME       runs until SIGTERM/SIGINT, or until the session
 *                                       ends (one connection per run: no reconnect)
 *
 * Threads: one runs qeli_client_run; main answers events, then reads the TUN and pushes
 * (batches of up to 64); a third pulls and writes the TUN. Only the public header.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <qeli_transport_core.h>

static uint64_t handle, generation;
static volatile sig_atomic_t stopping;
static int tun = -1;

static void on_signal(int sig) {
  (void)sig;
  stopping = 1;
}
static void nap_us(long us) {
  struct timespec ts = {0, us * 1000L};
  nanosleep(&ts, NULL);
}
static void* runner(void* arg) {
  (void)arg;
  int32_t rc = qeli_client_run(handle, NULL, 0);
  if (rc != QELI_CLIENT_OK) fprintf(stderr, "qeli_client_run: %d\n", rc);
  stopping = 1;
  return NULL;
}
/* Core → TUN. */
static void* downlink(void* arg) {
  (void)arg;
  static uint8_t buf[64 * 1500];
  uint32_t lens[64];
  while (!stopping) {
    size_t n = 0, bytes = 0;
    int32_t rc = qeli_client_tun_pull(handle, generation, buf, sizeof buf, lens, 64, &n, &bytes);
    if (rc != QELI_CLIENT_OK) {
      nap_us(20);
      continue;
    }
    size_t off = 0;
    for (size_t i = 0; i < n; off += lens[i++]) (void)!write(tun, buf + off, lens[i]);
  }
  return NULL;
}
static int json_field(const char* json, const char* key, char* out, size_t cap) {
  char pat[64];
  snprintf(pat, sizeof pat, "\"%s\":", key);
  const char* p = strstr(json, pat);
  if (p == NULL) return -1;
  p += strlen(pat);
  if (*p == '"') ++p;
  size_t n = 0;
  while (p[n] && p[n] != '"' && p[n] != ',' && p[n] != '}' && n + 1 < cap) ++n;
  memcpy(out, p, n);
  out[n] = 0;
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: qeli_tun_bridge LINK TUN-NAME\n");
    return 2;
  }
  signal(SIGTERM, on_signal);
  signal(SIGINT, on_signal);
  tun = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
  struct ifreq ifr;
  memset(&ifr, 0, sizeof ifr);
  ifr.ifr_flags = IFF_TUN | IFF_NO_PI;
  snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", argv[2]);
  if (tun < 0 || ioctl(tun, TUNSETIFF, &ifr) != 0) {
    perror("TUN");
    return 1;
  }
  /* The device id the server counts sessions by (the core requires one): one per run. */
  uint8_t id[16] = {0};
  FILE* urandom = fopen("/dev/urandom", "rb");
  if (urandom == NULL || fread(id, 1, sizeof id, urandom) != sizeof id) {
    fprintf(stderr, "cannot read /dev/urandom\n");
    return 1;
  }
  fclose(urandom);
  id[0] |= 1;
  if (qeli_client_new((const uint8_t*)argv[1], strlen(argv[1]),
                      QELI_PLATFORM_ROUTES | QELI_PLATFORM_DNS | QELI_PLATFORM_TUN_PACKET_BATCH, 0,
                      &handle) != QELI_CLIENT_OK ||
      qeli_client_set_device_id(handle, id, sizeof id) != QELI_CLIENT_OK ||
      qeli_client_start(handle) != QELI_CLIENT_OK) {
    fprintf(stderr, "cannot start the client\n");
    return 1;
  }
  pthread_t run_thread, down_thread;
  pthread_create(&run_thread, NULL, runner, NULL);
  static char payload[65536];
  while (!stopping && generation == 0) {
    qeli_client_event_t ev = QELI_CLIENT_EVENT_INIT;
    size_t n = 0;
    if (qeli_client_poll_event(handle, &ev, (uint8_t*)payload, sizeof payload - 1, &n) !=
        QELI_CLIENT_OK) {
      nap_us(2000);
      continue;
    }
    payload[n] = 0;
    if (ev.kind == QELI_CLIENT_ERROR) fprintf(stderr, "error: %s\n", payload);
    if (ev.kind != QELI_CLIENT_NETWORK_PLAN) continue;
    char addr[32], prefix[8], mtu[8], cmd[256];
    json_field(payload, "tunnel_address", addr, sizeof addr);
    json_field(payload, "prefix_len", prefix, sizeof prefix);
    json_field(payload, "mtu", mtu, sizeof mtu);
    snprintf(cmd, sizeof cmd,
             "ip addr add %s/%s dev %s && ip link set %s mtu %s txqueuelen 1000 up", addr, prefix,
             argv[2], argv[2], mtu);
    if (system(cmd) != 0) {
      qeli_client_network_plan_result(handle, ev.plan_generation, -1, NULL, 0);
      break;
    }
    if (qeli_client_network_plan_result(handle, ev.plan_generation, 0, NULL, 0) == 0) {
      generation = ev.plan_generation;
      fprintf(stderr, "bridging %s (%s/%s) through libqeli\n", argv[2], addr, prefix);
    }
  }
  pthread_create(&down_thread, NULL, downlink, NULL);
  /* TUN → core: read what is there (non-blocking), push it as one batch. */
  fcntl(tun, F_SETFL, fcntl(tun, F_GETFL) | O_NONBLOCK);
  static uint8_t buf[64 * 1500];
  uint32_t lens[64];
  while (!stopping) {
    size_t n = 0, off = 0;
    while (n < 64) {
      ssize_t r = read(tun, buf + off, 1500);
      if (r <= 0) break;
      lens[n++] = (uint32_t)r;
      off += (size_t)r;
    }
    if (n == 0) {
      struct pollfd p = {tun, POLLIN, 0};
      poll(&p, 1, 100);
      continue;
    }
    size_t done = 0, at = 0;
    while (done < n && !stopping) {
      size_t accepted = 0;
      qeli_client_tun_push(handle, generation, buf + at, off - at, lens + done, n - done,
                           &accepted);
      for (size_t i = 0; i < accepted; ++i) at += lens[done + i];
      done += accepted;
      if (done < n) nap_us(20);
    }
  }
  qeli_client_stats_t st = QELI_CLIENT_STATS_INIT;
  if (qeli_client_stats(handle, &st) == QELI_CLIENT_OK) {
    fprintf(stderr, "tx %llu packets, rx %llu packets, dropped on a full queue %llu\n",
            (unsigned long long)st.tx_packets, (unsigned long long)st.rx_packets,
            (unsigned long long)st.udp_internal_drops);
  }
  qeli_client_stop(handle);
  pthread_join(run_thread, NULL);
  pthread_join(down_thread, NULL);
  qeli_client_free(handle);
  return 0;
}
