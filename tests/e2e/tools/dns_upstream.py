#!/usr/bin/env python3
"""A tiny authoritative DNS server for the e2e tests: the "upstream" behind qeli's proxy.

    dns_upstream.py --listen IP [--listen IP ...] [--port 53] --log FILE
                    [--a NAME=IPV4 ...] [--drop IP]

Answers over UDP and TCP (RFC 1035 §4.2.2 framing), on every --listen address:
  * NAME from --a            → one A record (TTL 300); AAAA and other types → NODATA + SOA
  * big.*                    → a ~3000-byte TXT answer over TCP; over UDP only the header
                               and question with TC=1 (so a resolver must retry over TCP)
  * anything else            → NXDOMAIN with an SOA (negative TTL 60, RFC 2308)
Queries arriving on a --drop address are logged and never answered (a dead upstream).
Every query is appended to FILE as one line: "<udp|tcp> <local-ip> <peer-ip> <name> <type>",
flushed at once, so a test can count what reached the upstream.
"""
import argparse
import socket
import struct
import sys
import threading

ZONE = "e2e.test"


def read_name(msg, off):
    labels = []
    while True:
        n = msg[off]
        if n == 0:
            return ".".join(labels).lower(), off + 1
        if n & 0xC0:
            raise ValueError("compressed names are not expected in queries")
        labels.append(msg[off + 1 : off + 1 + n].decode("ascii", "replace"))
        off += 1 + n


def name_bytes(name):
    out = b""
    for label in name.split("."):
        if label:
            out += bytes([len(label)]) + label.encode()
    return out + b"\0"


def soa_rr():
    rdata = name_bytes("ns." + ZONE) + name_bytes("admin." + ZONE)
    rdata += struct.pack(">IIIII", 1, 3600, 600, 86400, 60)
    return name_bytes(ZONE) + struct.pack(">HHIH", 6, 1, 300, len(rdata)) + rdata


def answer(query, records, udp):
    qid, flags, qd = struct.unpack(">HHH", query[:6])
    name, off = read_name(query, 12)
    qtype, _ = struct.unpack(">HH", query[off : off + 4])
    question = query[12 : off + 4]
    rd = flags & 0x0100
    an, ns, rcode, tc = [], [], 0, 0
    if name.startswith("big."):
        if udp:
            tc = 0x0200
        else:
            txt = b""
            for _ in range(12):
                txt += bytes([250]) + b"y" * 250
            an.append(b"\xc0\x0c" + struct.pack(">HHIH", 16, 1, 300, len(txt)) + txt)
    elif name in records:
        if qtype == 1:
            an.append(b"\xc0\x0c" + struct.pack(">HHIH", 1, 1, 300, 4) +
                      socket.inet_aton(records[name]))
        else:
            ns.append(soa_rr())
    else:
        rcode = 3
        ns.append(soa_rr())
    hdr = struct.pack(">HHHHHH", qid, 0x8000 | 0x0400 | rd | tc | rcode, 1, len(an), len(ns), 0)
    return hdr + question + b"".join(an) + b"".join(ns), name, qtype


class Log:
    def __init__(self, path):
        self.f = open(path, "a", buffering=1)
        self.lock = threading.Lock()

    def line(self, *parts):
        with self.lock:
            self.f.write(" ".join(str(p) for p in parts) + "\n")
            self.f.flush()


def serve_udp(sock, local, records, log, drop):
    while True:
        data, peer = sock.recvfrom(65535)
        try:
            reply, name, qtype = answer(data, records, True)
        except (ValueError, IndexError, struct.error):
            continue
        log.line("udp", local, peer[0], name, qtype)
        if not drop:
            sock.sendto(reply, peer)


def serve_tcp_conn(conn, local, records, log, drop):
    with conn:
        buf = b""
        while True:
            chunk = conn.recv(65535)
            if not chunk:
                return
            buf += chunk
            while len(buf) >= 2:
                n = struct.unpack(">H", buf[:2])[0]
                if len(buf) < 2 + n:
                    break
                msg, buf = buf[2 : 2 + n], buf[2 + n :]
                try:
                    reply, name, qtype = answer(msg, records, False)
                except (ValueError, IndexError, struct.error):
                    return
                log.line("tcp", local, conn.getpeername()[0], name, qtype)
                if not drop:
                    conn.sendall(struct.pack(">H", len(reply)) + reply)


def serve_tcp(sock, local, records, log, drop):
    while True:
        conn, _ = sock.accept()
        threading.Thread(target=serve_tcp_conn, args=(conn, local, records, log, drop),
                         daemon=True).start()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--listen", action="append", required=True)
    ap.add_argument("--port", type=int, default=53)
    ap.add_argument("--log", required=True)
    ap.add_argument("--a", action="append", default=[])
    ap.add_argument("--drop", action="append", default=[])
    args = ap.parse_args()
    records = {}
    for spec in args.a:
        name, ip = spec.split("=", 1)
        records[name.lower().rstrip(".")] = ip
    log = Log(args.log)
    threads = []
    for ip in args.listen:
        drop = ip in args.drop
        u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        u.bind((ip, args.port))
        t = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        t.bind((ip, args.port))
        t.listen(16)
        threads.append(threading.Thread(target=serve_udp, args=(u, ip, records, log, drop),
                                        daemon=True))
        threads.append(threading.Thread(target=serve_tcp, args=(t, ip, records, log, drop),
                                        daemon=True))
    for th in threads:
        th.start()
    print("ready", flush=True)
    threading.Event().wait()


if __name__ == "__main__":
    sys.exit(main())
