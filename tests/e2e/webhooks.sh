#!/usr/bin/env bash
# e2e: webhooks ([webhooks], docs/OPERATIONS.md "Webhooks") delivered to a real HTTP
# receiver in the client's namespace, through a receiver outage and a server restart.
#
#   1. the receiver is down: alice connects and is kicked; the server logs the failed
#      deliveries and keeps the events in its outbox (SQLite);
#   2. the server stops; the receiver comes up; the server starts again and delivers the
#      connect, kick and disconnect it kept — each once, in order, with a valid
#      Standard-Webhooks signature (HMAC-SHA256 over id.timestamp.body, checked by the
#      receiver with the shared secret), and no secret in any body;
#   3. a new event after the restart is delivered at once; the outbox ends empty and its
#      delivery log says "delivered" (and, through the control API's webhook-log that the
#      panel shows, the failed attempts with their reason).
#
# Usage: webhooks.sh QELI_BINARY
set -euo pipefail
QELI=$(readlink -f "$1")
source "$(dirname "$0")/netns.sh"
source "$(dirname "$0")/lib.sh"
e2e_setup

dir="$E2E_DIR/srv"
mkdir -p "$dir"
secret=$(openssl rand -hex 32)
printf '%s\n' "$secret" >"$dir/webhook.secret"
chmod 600 "$dir/webhook.secret"
e2e_server_conf "$dir" fake-tls "
[webhooks]
enabled = true
url = http://$UL_C:8099/qeli-hook
secret_file = webhook.secret
outbox = webhooks.db
allow_http = true
allow_private = true
events = session.connected, session.disconnected, session.kicked, users.changed"
link=$(e2e_add_user "$dir" alice alice-pass)

# The receiver in the client namespace: verifies, then appends to got.jsonl.
cat >"$E2E_DIR/receiver.py" <<'PY'
import base64, hashlib, hmac, http.server, json, signal, sys, time
signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
host, secret, out = sys.argv[1], sys.argv[2].encode(), sys.argv[3]
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers['Content-Length']))
        mid, ts = self.headers['Qeli-Webhook-Id'], self.headers['Qeli-Webhook-Timestamp']
        want = 'v1,' + base64.b64encode(hmac.new(secret, f'{mid}.{ts}.'.encode() + body,
                                                  hashlib.sha256).digest()).decode()
        ok = hmac.compare_digest(want, self.headers['Qeli-Webhook-Signature'])
        fresh = abs(time.time() - int(ts)) < 300
        ev = json.loads(body)
        with open(out, 'a') as f:
            f.write(json.dumps({'id': mid, 'sig_ok': ok, 'fresh': fresh, 'path': self.path,
                                'secret_in_body': secret in body, 'event': ev}) + '\n')
        self.send_response(204 if ok and fresh else 401)
        self.end_headers()
    def log_message(self, *a): pass
http.server.HTTPServer((host, 8099), H).serve_forever()
PY
receiver() {
  e2e_bg receiver "$NS_C" python3 "$E2E_DIR/receiver.py" "$UL_C" "$secret" "$E2E_DIR/got.jsonl"
  e2e_wait_for 5 ip netns exec "$NS_C" sh -c "ss -ltn | grep -q ':8099 '" || e2e_fail "receiver"
}
outbox() {  # SQL → rows of the server's outbox
  python3 -c "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]);
[print('|'.join(map(str, r))) for r in c.execute(sys.argv[2])]" "$dir/webhooks.db" "$1"
}

# 1. Receiver down.
e2e_start_server server "$dir"
grep -q "\[webhooks\] delivering to http://$UL_C:8099/qeli-hook" "$E2E_DIR/server.log" ||
  e2e_fail "no start-up line for webhooks"
e2e_start_client alice "$NS_C" "$dir" "$link"
e2e_wait_tunnel 15 "$NS_C" >/dev/null || e2e_fail "alice got no tunnel address"
e2e_wait_for 10 grep -q "\[webhooks\] delivery to .* failed" "$E2E_DIR/server.log" ||
  e2e_fail "no log line for the failed delivery"
"$QELI" kick alice --socket "$dir/control.sock" >/dev/null
e2e_finish alice
e2e_wait_for 5 sh -c "[ \"\$(python3 -c \"import sqlite3; print(sqlite3.connect('$dir/webhooks.db').execute('select count(*) from outbox').fetchone()[0])\")\" -ge 3 ]" ||
  e2e_fail "the outbox does not hold connect, kick and disconnect: $(outbox 'select type, attempts from outbox')"
e2e_finish server

# 2. Receiver up, server again: the kept events arrive.
receiver
e2e_start_server server2 "$dir"
e2e_wait_for 15 sh -c "[ -f '$E2E_DIR/got.jsonl' ] && [ \$(wc -l <'$E2E_DIR/got.jsonl') -ge 3 ]" ||
  e2e_fail "kept events not delivered after the restart: $(outbox 'select type, attempts, next_ms from outbox')"
python3 - "$E2E_DIR/got.jsonl" <<'PY' || e2e_fail "deliveries: $(cat "$E2E_DIR/got.jsonl")"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert all(r['sig_ok'] and r['fresh'] for r in rows), 'a signature did not verify'
assert not any(r['secret_in_body'] for r in rows), 'the secret is in a body'
assert all(r['path'] == '/qeli-hook' for r in rows)
types = [r['event']['type'] for r in rows]
assert types[:3] == ['session.connected', 'session.kicked', 'session.disconnected'], types
assert all(r['event']['data'].get('username') == 'alice' for r in rows[:3]), rows
ids = [r['id'] for r in rows]
assert len(set(ids)) == len(ids), 'an event was delivered twice'
assert all(r['event']['id'] == r['id'] for r in rows)
assert 'rx_bytes' in rows[2]['event']['data']
PY

# 3. A new event now goes at once (a reload of the users: users.changed).
before=$(wc -l <"$E2E_DIR/got.jsonl")
kill -HUP "$E2E_PID_server2"
e2e_wait_for 10 sh -c "[ \$(wc -l <'$E2E_DIR/got.jsonl') -gt $before ]" ||
  e2e_fail "users.changed after a reload was not delivered"
tail -1 "$E2E_DIR/got.jsonl" | grep -q '"type": "users.changed"' || e2e_fail "last delivery: $(tail -1 "$E2E_DIR/got.jsonl")"
[ "$(outbox 'select count(*) from outbox')" = 0 ] || e2e_fail "the outbox is not empty"
[ "$(outbox "select count(*) from deliveries where result = 'delivered'")" -ge 4 ] ||
  e2e_fail "delivery log: $(outbox 'select result, status, detail from deliveries')"
[ "$(outbox "select count(*) from deliveries where result = 'failed'")" -ge 1 ] ||
  e2e_fail "the failed attempts are not in the delivery log"
# The same log through the control API (the panel's Webhooks page and GET
# /api/v1/webhooks ask it): newest first, the failed attempts with their reason.
python3 "$(dirname "$(readlink -f "$0")")/tools/control_call.py" "$dir/control.sock" \
  '{"cmd": "webhook-log", "limit": 50}' >"$E2E_DIR/webhook_log.json" || e2e_fail "webhook-log"
python3 - "$E2E_DIR/webhook_log.json" <<'PY' || e2e_fail "webhook-log: $(cat "$E2E_DIR/webhook_log.json")"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["ok"] and r["enabled"] and r["pending"] == 0, r
rows = r["deliveries"]
results = [d["result"] for d in rows]
assert results.count("delivered") >= 4 and "failed" in results, results
assert rows[0]["at_ms"] >= rows[-1]["at_ms"], "not newest first"
assert rows[0]["type"] == "users.changed" and 200 <= rows[0]["status"] < 300, rows[0]
failed = [d for d in rows if d["result"] == "failed"]
assert all(d["status"] == 0 and d["detail"] for d in failed), failed
assert all(d["type"] and d["id"] for d in rows), rows
PY
# The dispatcher's counters reach `qeli stats` (and /metrics through the same snapshot).
"$QELI" stats --socket "$dir/control.sock" |
  grep -Eq '^\[webhooks\] +delivered +[1-9]' ||
  e2e_fail "qeli stats has no [webhooks] delivered row"
e2e_finish server2 receiver
e2e_log "webhooks ok"
