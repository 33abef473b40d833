#!/usr/bin/env bash
# The Debian package, installed and run the way a user would, in a fresh Debian 12 root
# booted with systemd-nspawn (systemd as PID 1 inside, a private network):
#
#   1. dpkg -i: the qeli user, /etc/qeli, /var/lib/qeli, /var/log/qeli with their owners
#      and modes; nothing started;
#   2. a server config, `systemctl start qeli-server` (Type=notify: active only once it
#      said READY=1); the process runs as qeli with CAP_NET_ADMIN only (/proc/PID/status);
#   3. `qeli add-client` provisions a user, `systemctl reload qeli-server` loads it, a
#      client in a network namespace inside the container connects and pings through the
#      tunnel (qeli-client@office.service, moved into the namespace by a drop-in);
#      `qeli status` there shows it connected; its journal lines carry
#      PRIORITY, QELI_* fields and no timestamp of their own;
#   4. `systemctl reload` again: the same process, the session kept (no disconnect);
#   5. `systemd-analyze security` of both units (printed; docs/OPERATIONS.md has it);
#   6. upgrade to a newer version of the package (tests/package/reversion.sh): the
#      running server is stopped and started again, the config, users file and identity
#      key are byte-identical, the client reconnects;
#   7. dpkg -P: /etc/qeli, /var/lib/qeli, /var/log/qeli, the units and the binary are
#      gone; files next to them that are not qeli's stay.
#
#   install_test.sh DEB_V1 DEB_V2
#
# The Debian root comes from debootstrap (Debian's own mirror) once and is cached as a
# tarball in $QELI_ROOTFS_CACHE (default /var/cache/qeli-test), outside the checkout;
# each run unpacks a fresh copy. Exit 77 (skipped, with the reason) only when this
# machine cannot do it: not root, or no systemd-nspawn/debootstrap and no way to get them.
set -euo pipefail
deb1=$(readlink -f "$1")
deb2=$(readlink -f "$2")
cache=${QELI_ROOTFS_CACHE:-/var/cache/qeli-test}
id=qeli-it-$$
work=$(mktemp -d /var/tmp/$id.XXXXXX)
root=$work/root
nspawn_pid=""

log() { printf '[install-test %s] %s\n' "$(date +%H:%M:%S)" "$*"; }
skip() { log "SKIP: $*"; exit 77; }
fail() {
  log "FAIL: $*"
  if [ -n "$nspawn_pid" ]; then
    c journalctl --no-pager -n 60 -u qeli-server -u qeli-client@office 2>/dev/null | sed 's/^/  journal: /' || true
    c tail -n 30 /var/log/qeli/server.log 2>/dev/null | sed 's/^/  server.log: /' || true
  fi
  exit 1
}
cleanup() {
  if [ -n "$nspawn_pid" ] && kill -0 "$nspawn_pid" 2>/dev/null; then
    kill -TERM "$nspawn_pid" 2>/dev/null || true  # nspawn powers the container off
    for _ in $(seq 50); do kill -0 "$nspawn_pid" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$nspawn_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

[ "$(id -u)" = 0 ] || skip "needs root (debootstrap, systemd-nspawn)"
for tool in debootstrap systemd-nspawn nsenter; do
  command -v "$tool" >/dev/null || skip "$tool is not installed (scripts/bootstrap.sh installs it)"
done
[ -e /dev/net/tun ] || skip "no /dev/net/tun on this machine"

# --- a fresh Debian 12 root ------------------------------------------------------------
# Everything the package depends on is in the root already (the container has no network).
# debootstrap takes real package names: a virtual one (libspdlog1.10-fmt9) becomes the
# package that provides it.
deps=""
for d in $(dpkg-deb -f "$deb1" Depends | tr ',' '\n' | sed 's/|.*//; s/(.*)//; s/ //g' | grep -v '^$'); do
  if [ -n "$(apt-cache madison "$d" 2>/dev/null)" ]; then
    deps="$deps $d"
  else
    deps="$deps $(apt-cache showpkg "$d" | sed -n '/^Reverse Provides:/{n;p;q}' | awk '{print $1}')"
  fi
done
include=$(printf '%s\n' systemd systemd-sysv dbus iproute2 nftables iputils-ping procps $deps |
  sort -u | paste -sd, -)
key=$(printf '%s' "$include" | sha256sum | cut -c1-12)
tarball=$cache/bookworm-$key.tar
if [ ! -f "$tarball" ]; then
  log "debootstrap bookworm into the cache ($include)"
  mkdir -p "$cache"
  debootstrap --variant=minbase --include="$include" bookworm "$work/boot" \
    http://deb.debian.org/debian >"$work/debootstrap.log" 2>&1 ||
    {
      tail -20 "$work/debootstrap.log"
      if grep -Eq "Failed getting release file|Temporary failure resolving|Could not resolve|Connection (refused|timed out)" \
        "$work/debootstrap.log"; then
        skip "debootstrap cannot reach Debian's mirror from this machine"
      fi
      fail "debootstrap failed"
    }
  rm -rf "$work/boot/var/cache/apt/archives/"*.deb
  tar -C "$work/boot" -cf "$tarball.tmp" . && mv "$tarball.tmp" "$tarball"
  rm -rf "$work/boot"
fi
mkdir -p "$root"
tar -C "$root" -xf "$tarball"
echo qelitest >"$root/etc/hostname"
cp "$deb1" "$root/root/qeli-v1.deb"
cp "$deb2" "$root/root/qeli-v2.deb"

# --- boot it ---------------------------------------------------------------------------
systemd-nspawn -q -D "$root" -M "$id" -b --register=no --keep-unit --private-network \
  --bind=/dev/net/tun >"$work/console.log" 2>&1 </dev/null &
nspawn_pid=$!
leader=""
for _ in $(seq 100); do
  leader=$(pgrep -P "$nspawn_pid" -x systemd || true)
  [ -n "$leader" ] && break
  sleep 0.1
done
[ -n "$leader" ] || { cat "$work/console.log"; fail "the container did not boot"; }
c() { nsenter -t "$leader" -a -r -w env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }
# systemctl needs systemd's private socket, which appears a moment after PID 1 starts.
state=""
for _ in $(seq 120); do
  state=$(timeout 60 nsenter -t "$leader" -a -r -w /bin/systemctl is-system-running --wait 2>&1 || true)
  case $state in *"Failed to connect"*) sleep 0.5 ;; *) break ;; esac
done
case $state in running|degraded) ;; *) cat "$work/console.log" | tail -20; fail "boot: $state" ;; esac
log "container up ($state), systemd $(c systemctl --version | head -1 | awk '{print $2}')"

# --- 1. install -------------------------------------------------------------------------
c dpkg -i /root/qeli-v1.deb >"$work/dpkg1.log" 2>&1 || { cat "$work/dpkg1.log"; fail "dpkg -i v1"; }
c getent passwd qeli >/dev/null || fail "no qeli user"
[ "$(c id -u qeli)" -lt 1000 ] || fail "qeli is not a system user"
expect_stat() {  # PATH "owner:group mode"
  local got
  got=$(c stat -c '%U:%G %a' "$1") || fail "$1 missing"
  [ "$got" = "$2" ] || fail "$1 is $got, want $2"
}
expect_stat /etc/qeli "root:qeli 2750"
expect_stat /etc/qeli/identity "root:root 700"
expect_stat /etc/qeli/users.conf "root:qeli 640"
expect_stat /var/lib/qeli "root:root 755"
expect_stat /var/lib/qeli/server "qeli:qeli 750"
expect_stat /var/log/qeli "root:adm 755"
c test -f /lib/systemd/system/qeli-server.service || fail "no server unit"
c test -f /lib/systemd/system/qeli-client@.service || fail "no client unit"
c test -f /usr/share/man/man8/qeli.8.gz || fail "no qeli(8)"
c test -f /usr/share/man/man5/qeli.conf.5.gz || fail "no qeli.conf(5)"
c test -f /usr/share/bash-completion/completions/qeli || fail "no bash completion"
c test -f /usr/share/zsh/vendor-completions/_qeli || fail "no zsh completion"
c sh -c 'ls /usr/share/doc/qeli/examples/server.conf*' >/dev/null || fail "no example server.conf"
c systemctl is-active -q qeli-server && fail "the server started without a config"
c qeli --version | head -1 | sed 's/^/  /'
log "installed: user, directories, units, man pages, completion"

# --- 2. start the server -----------------------------------------------------------------
c ip link add qv0 type veth peer name qv1
c ip netns add cl
c ip link set qv1 netns cl
c ip addr add 10.99.0.1/24 dev qv0
c ip link set qv0 up
c ip -n cl addr add 10.99.0.2/24 dev qv1
c ip -n cl link set qv1 up
c ip -n cl link set lo up
c sh -c 'cat >/etc/qeli/server.conf' <<'CONF'
[logging]
level = info
file = /var/log/qeli/server.log
time_format = rfc3339

[profile:main]
bind.transport = tcp
bind.address = 10.99.0.1
bind.port = 4433
tun.name = qsrv0
tun.address = 10.88.0.1
tun.queues = 1
pool.cidr = 10.88.0.0/24
obf.mode = fake-tls
CONF
c chgrp qeli /etc/qeli/server.conf
c chmod 0640 /etc/qeli/server.conf
c qeli check-config /etc/qeli/server.conf >/dev/null || fail "check-config"
timeout 60 nsenter -t "$leader" -a -r -w /bin/systemctl start qeli-server || fail "systemctl start qeli-server"
pid=$(c systemctl show -p MainPID --value qeli-server)
[ "$pid" -gt 0 ] || fail "no MainPID"
st=$(c cat /proc/$pid/status)
uid=$(c id -u qeli)
echo "$st" | grep -Eq "^Uid:\s+$uid\s+$uid\s+$uid\s+$uid$" || fail "server uid: $(echo "$st" | grep ^Uid)"
echo "$st" | grep -Eq '^CapEff:\s+0000000000001000$' || fail "server CapEff: $(echo "$st" | grep ^CapEff)"
echo "$st" | grep -Eq '^CapPrm:\s+0000000000001000$' || fail "server CapPrm: $(echo "$st" | grep ^CapPrm)"
c systemctl show -p StatusText --value qeli-server | grep -q serving || fail "no STATUS= from sd_notify"
c grep -q "running as user qeli" /var/log/qeli/server.log || fail "no drop in the [logging] file"
c grep -Eq '^\[20[0-9-]+T[0-9:.]+[+-][0-9:]+\] \[info\]' /var/log/qeli/server.log ||
  fail "the log file does not use time_format = rfc3339"
log "server active (pid $pid): uid qeli, CapEff=CapPrm=cap_net_admin, READY/STATUS from sd_notify"

# --- 3. provision, reload, connect --------------------------------------------------------
link=$(echo alice-pass | c qeli add-client alice --password-stdin -c /etc/qeli/server.conf \
  --link --host 10.99.0.1:4433 --link-profile main --no-qr | grep '^qeli://') || fail "add-client"
c systemctl reload qeli-server || fail "reload after add-client"
for _ in $(seq 50); do c grep -q "reloaded users" /var/log/qeli/server.log && break; sleep 0.2; done
c grep -q "reloaded users from /etc/qeli/server.conf (1 users)" /var/log/qeli/server.log ||
  fail "the reload did not load alice"
# The client as the package runs it: qeli-client@office.service with its sandbox, moved
# into the namespace `cl` by a drop-in (systemd joins it before anything else).
key=$(c qeli show-identity -c /etc/qeli/server.conf | grep -Eo '[0-9a-f]{64}' | head -1)
c sh -c "cat >/etc/qeli/clients/office.conf" <<CONF
[qeli]
server = 10.99.0.1:4433
user = alice
pass = alice-pass
key = $key
mode = fake-tls
dev = vpn0
CONF
c chmod 0600 /etc/qeli/clients/office.conf
c mkdir -p /etc/systemd/system/qeli-client@office.service.d
c sh -c 'printf "[Service]\nNetworkNamespacePath=/run/netns/cl\n" >/etc/systemd/system/qeli-client@office.service.d/netns.conf'
c systemctl daemon-reload
timeout 60 nsenter -t "$leader" -a -r -w /bin/systemctl start qeli-client@office ||
  fail "systemctl start qeli-client@office"
c systemctl show -p StatusText --value qeli-client@office | sed 's/^/  client STATUS=/' 
ok=""
for _ in $(seq 75); do
  if c ip netns exec cl ping -c 1 -W 1 10.88.0.1 >/dev/null 2>&1; then ok=1; break; fi
  sleep 0.2
done
[ -n "$ok" ] || fail "no traffic through the tunnel"
c ip netns exec cl qeli status | sed 's/^/  /'
c ip netns exec cl qeli status --json | grep -q '"state":"connected"' || fail "qeli status: not connected"
# The client runs under systemd without a [logging] file: its lines reach journald
# natively, with priority and structured fields, and no timestamp of their own.
msg=$(c journalctl --no-pager -o cat QELI_DEV=vpn0 SYSLOG_IDENTIFIER=qeli | grep "connected to" | head -1)
[ -n "$msg" ] || fail "no client line with QELI_DEV=vpn0 in the journal"
case $msg in \[*) fail "journal line carries its own timestamp/level: $msg" ;; esac
c journalctl --no-pager -o verbose QELI_DEV=vpn0 | grep -q "QELI_SERVER=10.99.0.1:4433" ||
  fail "no QELI_SERVER field"
c journalctl --no-pager -o verbose QELI_DEV=vpn0 | grep -q "PRIORITY=6" || fail "no PRIORITY field"
log "client connected through the tunnel; qeli status sees it; journal fields present"

# --- 4. reload keeps the session ----------------------------------------------------------
c systemctl reload qeli-server || fail "second reload"
sleep 1
[ "$(c systemctl show -p MainPID --value qeli-server)" = "$pid" ] || fail "reload replaced the process"
c systemctl is-active -q qeli-server || fail "server not active after reload"
c ip netns exec cl ping -c 3 -i 0.2 -W 2 10.88.0.1 >/dev/null || fail "ping after the reload"
c grep -q "disconnected" /var/log/qeli/server.log && fail "the reload ended the session"
[ "$(c grep -c 'reloaded users' /var/log/qeli/server.log)" -ge 2 ] || fail "second reload not logged"
log "systemctl reload: same process, session kept"

# --- 5. systemd-analyze security ----------------------------------------------------------
for unit in qeli-server.service qeli-client@test.service; do
  c systemd-analyze security --no-pager "$unit" 2>/dev/null | tail -1 | sed "s/^/  /"
done

# --- 6. upgrade ---------------------------------------------------------------------------
sums() { c sh -c 'sha256sum /etc/qeli/server.conf /etc/qeli/users.conf /etc/qeli/identity/*.key'; }
before=$(sums)
c dpkg -i /root/qeli-v2.deb >"$work/dpkg2.log" 2>&1 || { cat "$work/dpkg2.log"; fail "dpkg -i v2"; }
[ "$(sums)" = "$before" ] || fail "the upgrade changed the config or the keys"
c systemctl is-active -q qeli-server || fail "server not running after the upgrade"
pid2=$(c systemctl show -p MainPID --value qeli-server)
[ "$pid2" != "$pid" ] || fail "the upgrade did not restart the server"
c dpkg-query -W -f='${Version}' qeli | grep -q "$(dpkg-deb -f "$deb2" Version)" || fail "version after upgrade"
ok=""
for _ in $(seq 100); do
  if c ip netns exec cl ping -c 1 -W 1 10.88.0.1 >/dev/null 2>&1; then ok=1; break; fi
  sleep 0.2
done
[ -n "$ok" ] || fail "the client did not come back after the upgrade"
log "upgrade: server restarted (pid $pid → $pid2), config/users/key unchanged, client back"

# --- 7. purge -----------------------------------------------------------------------------
c systemctl stop qeli-client@office
c sh -c 'echo keep >/etc/qeli-not-ours.conf; mkdir -p /var/lib/other; echo keep >/var/lib/other/x'
c dpkg -P qeli >"$work/dpkg3.log" 2>&1 || { cat "$work/dpkg3.log"; fail "dpkg -P"; }
for p in /etc/qeli /var/lib/qeli /var/log/qeli /usr/bin/qeli /lib/systemd/system/qeli-server.service \
  /lib/systemd/system/qeli-client@.service; do
  c test -e "$p" && fail "$p left after purge"
done
c pgrep -x qeli >/dev/null && fail "a qeli process survived the purge"
c test -f /etc/qeli-not-ours.conf || fail "purge removed a file that is not qeli's"
c test -f /var/lib/other/x || fail "purge removed a file that is not qeli's"
c test -f /etc/logrotate.d/qeli && fail "logrotate config left after purge"
log "purge: qeli's files gone, others kept"
log "install test ok"
