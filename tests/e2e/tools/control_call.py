#!/usr/bin/env python3
"""One request over a qeli control socket (docs/OPERATIONS.md "Control API").

    control_call.py SOCKET 'JSON_REQUEST'     prints the JSON answer on one line

or, from another script: sys.path.insert(0, <this dir>); from control_call import call.
The socket speaks one JSON object per line each way.
"""
import json
import socket
import sys


def call(path, request):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(10)
    s.connect(path)
    s.sendall((json.dumps(request) + "\n").encode())
    data = b""
    while not data.endswith(b"\n"):
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
    s.close()
    return json.loads(data)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    print(json.dumps(call(sys.argv[1], json.loads(sys.argv[2]))))
