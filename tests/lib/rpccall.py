#!/usr/bin/env python3
"""Call one procedure of a daemon's Sun RPC program over TCP, optionally
from a chosen local address (127.0.0.2 is loopback too, but not
127.0.0.1), and print what came back: the accept_stat of the reply
(0 SUCCESS, 1 PROG_UNAVAIL, 3 PROC_UNAVAIL, 4 GARBAGE_ARGS), then,
when the call succeeded and its result opens with "int code" (as
status_x and every query result of the daemons do), that code, and the
message string that follows it (quoted, as Python writes a string),
and the number after that (the count of ads in a query reply).

Arguments are written one XDR item each: i:N (int), h:N (hyper),
s:TEXT (string).

usage: rpccall.py [-s SOURCE_IP] HOST:PORT PROGRAM VERSION PROC [ARG...]
   e.g. rpccall.py -s 127.0.0.2 127.0.0.1:4000 0x2c0d0001 1 2 i:1 s: s:
"""
import socket
import struct
import sys


def xdr_arg(a):
    kind, _, val = a.partition(":")
    if kind == "i":
        return struct.pack(">i", int(val, 0))
    if kind == "h":
        return struct.pack(">q", int(val, 0))
    if kind == "s":
        b = val.encode()
        return struct.pack(">I", len(b)) + b + b"\0" * (-len(b) % 4)
    raise SystemExit("bad argument " + a)


def recv_exact(s, n):
    data = b""
    while len(data) < n:
        chunk = s.recv(n - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return data


def recv_record(s):
    data = b""
    while True:
        mark = struct.unpack(">I", recv_exact(s, 4))[0]
        data += recv_exact(s, mark & 0x7fffffff)
        if mark & 0x80000000:
            return data


def main():
    args = sys.argv[1:]
    source = None
    if args and args[0] == "-s":
        source, args = args[1], args[2:]
    host, _, port = args[0].strip("<>").rpartition(":")
    prog, vers, proc = (int(x, 0) for x in args[1:4])
    body = b"".join(xdr_arg(a) for a in args[4:])
    # xid, CALL, RPC version 2, program, version, procedure, no auth
    call = struct.pack(">IIIIIIIIII", 0x5eed, 0, 2, prog, vers, proc,
                       0, 0, 0, 0) + body
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(20)
    if source:
        s.bind((source, 0))
    s.connect((host, int(port)))
    s.sendall(struct.pack(">I", len(call) | 0x80000000) + call)
    try:
        reply = recv_record(s)
    except (EOFError, OSError):
        print("none")
        return
    # xid, REPLY, MSG_ACCEPTED, verifier (flavor, length 0), accept_stat
    if len(reply) < 24:
        print("short")
        return
    stat = struct.unpack(">I", reply[20:24])[0]
    out = [str(stat)]
    rest = reply[24:]
    if stat == 0 and len(rest) >= 4:
        out.append(str(struct.unpack(">i", rest[:4])[0]))
        if len(rest) >= 8:
            n = struct.unpack(">I", rest[4:8])[0]
            end = 8 + n + (-n % 4)
            if 8 + n <= len(rest):
                out.append(repr(rest[8:8 + n].decode(errors="replace")))
            if end + 4 <= len(rest):
                out.append(str(struct.unpack(">I", rest[end:end + 4])[0]))
    print(" ".join(out))


if __name__ == "__main__":
    main()
