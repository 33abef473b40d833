#!/usr/bin/env bash
# Many clients against one qeli server (docs/BENCHMARKS.md "Many clients"): a server in one
# network namespace, bench/load/qeli_load (N libqeli clients speaking the real protocol, one
# process) in another, a veth between them. Per transport (TCP fake-tls, UDP fake-tls):
#   idle       server RSS and threads before any client
#   storm      all N clients start at once (or --rate per second): time until every one has
#              its session, server CPU seconds spent, handshakes per second and per CPU second
#   connected  server RSS, peak RSS and threads with N sessions (read near the end of the
#              hold), CPU % while they sit idle (heartbeats only) for --hold seconds; every
#              session answers one ping first (that is inside the storm's window)
#
#   bench/load/run.sh [--clients N] [--rate R] [--hold S] [--transports tcp,udp]
#                     [--qeli BIN] [--load BIN] [--out DIR]
#
# Needs root (namespaces). Traffic stays inside the two namespaces it creates and removes.
# Bounded: each transport's run ends after connect timeout + hold + 30 s at the most.
set -euo pipefail

CLIENTS=1000 RATE=0 HOLD=20 TRANSPORTS=tcp,udp
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
QELI=$ROOT/build/release/qeli
LOAD=$ROOT/build/release/bench/load/qeli_load
OUT=$ROOT/bench/results/load-$(date +%Y%m%d-%H%M%S)
while (($#)); do
  case $1 in
    --clients) CLIENTS=$2; shift 2 ;;
    --rate) RATE=$2; shift 2 ;;
    --hold) HOLD=$2; shift 2 ;;
    --transports) TRANSPORTS=$2; shift 2 ;;
    --qeli) QELI=$2; shift 2 ;;
    --load) LOAD=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    -h | --help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
die() { echo "load: $*" >&2; exit 1; }
log() { echo "[$(date +%T)] $*" >&2; }
[[ $(id -u) == 0 ]] || die "needs root (network namespaces)"
[[ $CLIENTS =~ ^[0-9]+$ ]] && ((CLIENTS >= 1 && CLIENTS <= 4000)) || die "--clients must be 1..4000"
[[ $HOLD =~ ^[0-9]+$ ]] && ((HOLD <= 600)) || die "--hold must be 0..600"
[[ -x $QELI && -x $LOAD ]] || die "build first: $QELI and $LOAD (cmake --build --preset release)"
command -v jq >/dev/null || die "needs jq"

NS_S=qbload-s NS_C=qbload-c IP_S=10.250.0.1 IP_C=10.250.0.2 PORT=8443
CONNECT_TIMEOUT=$((60 + CLIENTS / 5))
mkdir -p "$OUT"
WORK=$(mktemp -d /tmp/qeli-load.XXXXXX)
SERVER_PID=""
cleanup() {
  [[ -n $SERVER_PID ]] && kill -TERM "$SERVER_PID" 2>/dev/null || true
  for ns in $NS_S $NS_C; do
    for p in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$p" 2>/dev/null || true; done
    ip netns del "$ns" 2>/dev/null || true
  done
  rm -rf "$WORK"
}
trap cleanup EXIT
cleanup_ns_only() { for ns in $NS_S $NS_C; do ip netns del "$ns" 2>/dev/null || true; done; }
cleanup_ns_only

ip netns add $NS_S
ip netns add $NS_C
ip link add qbload0 netns $NS_S type veth peer name qbload1 netns $NS_C
ip -n $NS_S addr add $IP_S/24 dev qbload0
ip -n $NS_C addr add $IP_C/24 dev qbload1
for ns in $NS_S $NS_C; do
  ip -n "$ns" link set lo up
done
ip -n $NS_S link set qbload0 up
ip -n $NS_C link set qbload1 up

# "VmRSS VmHWM Threads" (kB, kB, count) and CPU ticks (utime + stime) of a process
pid_mem() { awk '/^VmRSS:/{r=$2} /^VmHWM:/{h=$2} /^Threads:/{t=$2} END{print r+0, h+0, t+0}' "/proc/$1/status"; }
pid_ticks() { awk '{ s = $0; sub(/^.*\) /, "", s); split(s, f, " "); print f[12] + f[13] }' "/proc/$1/stat"; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
stop_server() { # TERM, 20 s to go, then KILL
  local i
  kill -TERM "$SERVER_PID" 2>/dev/null || true
  for ((i = 0; i < 200; i++)); do
    kill -0 "$SERVER_PID" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL "$SERVER_PID" 2>/dev/null || true
  wait "$SERVER_PID" 2>/dev/null || true
  SERVER_PID=""
}
HZ=$(getconf CLK_TCK)

run_transport() { # tcp | udp
  local t=$1 d=$WORK/$1 link
  mkdir -p "$d/identity"
  : >"$d/users.conf"
  cat >"$d/server.conf" <<CONF
[auth]
users_file = users.conf

[logging]
level = warn

[profile:load]
bind.transport = $t
bind.address = $IP_S
bind.port = $PORT
tun.name = qbloadt
tun.address = 10.251.0.1
pool.cidr = 10.251.0.0/20
obf.mode = fake-tls
perf.connection.max_clients = 5000
# Every client comes from one address: the per-address new-session limit is a defence
# against one scanner, not a capacity limit, and is lifted here.
perf.connection.new_session_rate_max = 1000000
CONF
  link=$(printf 'load-pass-%s\n' "$RANDOM$RANDOM" | "$QELI" add-client load --password-stdin \
    -c "$d/server.conf" --identity-dir "$d/identity" --link --host "$IP_S:$PORT" --no-qr |
    grep '^qeli://' | head -1) || true
  [[ -n $link ]] || die "qeli add-client printed no link"
  ip netns exec $NS_S "$QELI" server -c "$d/server.conf" --identity-dir "$d/identity" \
    --socket "$d/control.sock" >"$d/server.log" 2>&1 &
  SERVER_PID=$!
  local i listening=""
  for ((i = 0; i < 100; i++)); do
    if [[ $t == tcp ]]; then
      ip netns exec $NS_S ss -Htln "sport = :$PORT" | grep -q . && listening=1 && break
    else
      ip netns exec $NS_S ss -Huln "sport = :$PORT" | grep -q . && listening=1 && break
    fi
    kill -0 $SERVER_PID 2>/dev/null || die "server exited: $(tail -c 400 "$d/server.log")"
    sleep 0.1
  done
  [[ -n $listening ]] || die "$t: the server did not listen within 10 s: $(tail -c 400 "$d/server.log")"
  sleep 2
  local m0 m1 tk0 tk1 tk2 t0 t1 t2
  read -r -a m0 <<<"$(pid_mem $SERVER_PID)"
  log "$t: server idle $((m0[0] / 1024)) MiB, ${m0[2]} threads; $CLIENTS clients (rate ${RATE:-0}/s)"
  tk0=$(pid_ticks $SERVER_PID) t0=$(now_ms)
  ip netns exec $NS_C "$LOAD" --clients "$CLIENTS" --rate "$RATE" --hold "$HOLD" --ping \
    --connect-timeout "$CONNECT_TIMEOUT" "$link" >"$d/load.json" 2>"$d/load.log" &
  local lp=$! deadline=$(($(date +%s) + CONNECT_TIMEOUT + HOLD + 30))
  # The storm ends when the generator says it holds (every client connected, or timed out).
  until grep -q "holding" "$d/load.log" 2>/dev/null || ! kill -0 $lp 2>/dev/null; do
    (($(date +%s) < deadline)) || { kill -TERM $lp; die "$t: the generator did not finish"; }
    sleep 0.2
  done
  tk1=$(pid_ticks $SERVER_PID) t1=$(now_ms)
  local hold_ms=0
  if kill -0 $lp 2>/dev/null && ((HOLD > 2)); then
    sleep $((HOLD - 2))
    read -r -a m1 <<<"$(pid_mem $SERVER_PID)"
    tk2=$(pid_ticks $SERVER_PID) t2=$(now_ms)
    hold_ms=$((t2 - t1))
  else
    read -r -a m1 <<<"$(pid_mem $SERVER_PID)"
    tk2=$tk1 t2=$t1
  fi
  while kill -0 $lp 2>/dev/null; do
    (($(date +%s) < deadline)) || { kill -TERM $lp; die "$t: the generator did not finish"; }
    sleep 0.2
  done
  wait $lp || log "$t: not every client connected and answered (see $OUT/load-$t.json)"
  # The server's own counters (sheds, evictions, failures) for the report.
  "$QELI" stats --socket "$d/control.sock" --json >"$OUT/stats-$t.json" 2>/dev/null || true
  stop_server
  [[ -s $d/load.json ]] || die "$t: the generator printed nothing: $(tail -c 400 "$d/load.log")"
  jq -c --arg t "$t" --argjson hz "$HZ" \
    --argjson i0 "${m0[0]}" --argjson th0 "${m0[2]}" \
    --argjson i1 "${m1[0]}" --argjson h1 "${m1[1]}" --argjson th1 "${m1[2]}" \
    --argjson storm_ticks "$((tk1 - tk0))" --argjson storm_ms "$((t1 - t0))" \
    --argjson idle_ticks "$((tk2 - tk1))" --argjson hold_ms "$hold_ms" \
    '. + {transport: $t,
          server_idle: {rss_kb: $i0, threads: $th0},
          server_connected: {rss_kb: $i1, hwm_kb: $h1, threads: $th1,
                             rss_kb_per_session: (if .connected > 0 then (($i1 - $i0) / .connected | floor) else null end)},
          storm: {wall_ms: $storm_ms, server_cpu_s: ($storm_ticks / $hz),
                  handshakes_per_cpu_s: (if $storm_ticks > 0 then (.connected / ($storm_ticks / $hz) | . * 10 | floor / 10) else null end)},
          idle_cpu_pct: (if $hold_ms > 0 then ($idle_ticks / $hz * 100000 / $hold_ms | . * 10 | floor / 10) else null end)}' \
    "$d/load.json" >"$OUT/load-$t.json"
  cp "$d/server.log" "$OUT/server-$t.log"
  log "$t: $(jq -r '"\(.connected)/\(.clients) connected in \(.connect_all_ms) ms (\(.handshakes_per_s)/s, \(.storm.handshakes_per_cpu_s) per server CPU s), \(.ping_replies) pings answered; server \(.server_connected.rss_kb / 1024 | floor) MiB, \(.server_connected.threads) threads, idle CPU \(.idle_cpu_pct) %"' "$OUT/load-$t.json")"
}

for t in ${TRANSPORTS//,/ }; do
  case $t in tcp | udp) run_transport "$t" ;; *) die "unknown transport $t" ;; esac
done
{
  echo "| transport | clients | connected | pings | connect all (s) | handshakes/s | per server CPU s | server RSS idle → connected (MiB) | KiB/session | threads | idle CPU % |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|"
  for t in ${TRANSPORTS//,/ }; do
    jq -r '"| \(.transport) | \(.clients) | \(.connected) | \(.ping_replies) | \(.connect_all_ms / 1000 | . * 10 | floor / 10) | \(.handshakes_per_s) | \(.storm.handshakes_per_cpu_s) | \(.server_idle.rss_kb / 1024 | floor) → \(.server_connected.rss_kb / 1024 | floor) | \(.server_connected.rss_kb_per_session) | \(.server_idle.threads) → \(.server_connected.threads) | \(.idle_cpu_pct) |"' "$OUT/load-$t.json"
  done
} >"$OUT/table.md"
cat "$OUT/table.md"
