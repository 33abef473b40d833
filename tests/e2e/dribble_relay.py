#!/usr/bin/env python3
"""A TCP relay that dribbles the start of each connection one byte per segment.

    dribble_relay.py LISTEN_IP:PORT UPSTREAM_IP:PORT [--bytes N] [--gap-ms MS]

For every accepted connection it connects upstream with TCP_NODELAY on both sockets and
forwards the first N bytes (default 2048) of EACH direction one byte per send(), pausing
MS (default 1) between sends so the kernel cannot merge them (no Nagle, no autocork);
after that it copies in both directions as fast as it can. This is how a hostile or
merely odd middlebox can deliver a handshake: a reader must reassemble, never assume
that one recv() is one message. On exit, prints how many single-byte sends it made per
direction.
"""
import argparse
import signal
import socket
import sys
import threading
import time


def parse_addr(s):
    host, port = s.rsplit(":", 1)
    return host, int(port)


def pump(src, dst, dribble, gap_s, counter, key):
    sent_single = 0
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            i = 0
            while i < len(data) and sent_single < dribble:
                dst.sendall(data[i:i + 1])
                sent_single += 1
                i += 1
                time.sleep(gap_s)
            if i < len(data):
                dst.sendall(data[i:])
    except OSError:
        pass
    finally:
        counter[key] = counter.get(key, 0) + sent_single
        for s in (dst, src):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("listen")
    ap.add_argument("upstream")
    ap.add_argument("--bytes", type=int, default=2048)
    ap.add_argument("--gap-ms", type=float, default=1.0)
    a = ap.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))

    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(parse_addr(a.listen))
    ls.listen(16)
    counter = {}
    print("listening", flush=True)
    try:
        while True:
            c, _ = ls.accept()
            u = socket.create_connection(parse_addr(a.upstream), timeout=10)
            u.settimeout(None)
            for s in (c, u):
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            for src, dst, key in ((c, u, "up"), (u, c, "down")):
                threading.Thread(target=pump, args=(src, dst, a.bytes, a.gap_ms / 1000.0,
                                                    counter, key), daemon=True).start()
            print("connection", flush=True)
    except KeyboardInterrupt:
        pass
    finally:
        print("single-byte sends:", counter, flush=True)


if __name__ == "__main__":
    sys.exit(main())
