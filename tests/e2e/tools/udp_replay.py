#!/usr/bin/env python3
"""Captures one UDP datagram a client sends to the server and sends it again from
another address: as it was (a replay) and with its last byte flipped (a forgery).

Usage (inside the client's namespace):
  udp_replay.py IFACE SERVER_IP PORT NEW_SRC_IP COUNTER_OFFSET
COUNTER_OFFSET is where the record's encrypted counter starts in the datagram (17 for a
bare record; plus 13 for the obfs seal and 9 for a QUIC short header): the forgery flips
a byte there, so only the AEAD check (not the replay window) can refuse it.
Prints "sent 2" after both copies went out. Only addresses inside the test's network
namespaces are used; the capture ends after 10 s at the latest.
"""
import socket
import struct
import sys
import time

ETH_P_ALL = 0x0003


def capture(iface, server_ip, port, timeout=10.0):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    s.bind((iface, 0))
    s.settimeout(0.5)
    want = socket.inet_aton(server_ip)
    end = time.time() + timeout
    while time.time() < end:
        try:
            frame = s.recv(65535)
        except socket.timeout:
            continue
        if len(frame) < 14 + 20 + 8 or frame[12:14] != b"\x08\x00":
            continue
        ip = frame[14:]
        ihl = (ip[0] & 0x0F) * 4
        if ip[9] != 17 or ip[16:20] != want or len(ip) < ihl + 8:
            continue
        dport = struct.unpack("!H", ip[ihl + 2:ihl + 4])[0]
        if dport != port:
            continue
        total = struct.unpack("!H", ip[2:4])[0]
        udp_len = struct.unpack("!H", ip[ihl + 4:ihl + 6])[0]
        payload = ip[ihl + 8:total]
        if udp_len != len(payload) + 8 or len(payload) <= 60:
            continue  # not one whole datagram (a GSO super-packet), or a tiny probe
        if payload[0] == 0x17 and struct.unpack("!H", payload[3:5])[0] != len(payload) - 5:
            continue  # a bare record must be exactly one
        return payload
    return None


def main():
    iface, server_ip, port, new_src = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    counter_at = int(sys.argv[5])
    payload = capture(iface, server_ip, port)
    if payload is None:
        print("captured nothing", file=sys.stderr)
        return 1
    # The original reaches the server first (the copy must be a replay, not the newest).
    time.sleep(0.5)
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u.bind((new_src, 0))
    u.sendto(payload, (server_ip, port))
    time.sleep(0.2)
    forged = bytearray(payload)
    forged[counter_at + 7] ^= 0x01  # the counter's low byte: a fresh counter if unchecked
    u.sendto(bytes(forged), (server_ip, port))
    print("sent 2")
    return 0


if __name__ == "__main__":
    sys.exit(main())
